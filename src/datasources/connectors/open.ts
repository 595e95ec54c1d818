/**
 * `openConnector`: a connector (and its pool) for one datasource definition. No connection is
 * opened here; the pool connects on the first lease.
 */
import { AppError } from "../../errors/mod.ts";
import type { Logger } from "../../lib/log.ts";
import { type ConnectorConfig, credentialKindsFor } from "./definition.ts";
import { parseJdbcUrl, validateDriverOptions } from "./jdbc_url.ts";
import { DuckdbConnector } from "./duckdb.ts";
import { MysqlConnector } from "./mysql.ts";
import { PostgresConnector } from "./postgres.ts";
import { SqliteConnector } from "./sqlite.ts";
import type { Connector, EngineLimits } from "./types.ts";

export interface OpenDeps {
  logger?: Logger;
  /** Bounds on what author SQL may make (the defaults when absent). */
  limits?: EngineLimits;
}

/**
 * Opens the connector of `config`. LAKE datasources are opened by the lake module, which reads
 * the registry; asking here for one is a programming error.
 */
export function openConnector(
  config: ConnectorConfig,
  deps: OpenDeps = {},
): Connector {
  const target = parseJdbcUrl(config.dialect, config.jdbc_url);
  const options = {
    ...target.options,
    ...validateDriverOptions(config.dialect, config.jdbc ?? {}),
  };
  if (!credentialKindsFor(config.dialect).includes(config.credential.kind)) {
    throw new AppError("datasource.validation.properties_invalid", {
      field: "credential.kind",
      reason: `${config.dialect} accepts ${credentialKindsFor(config.dialect).join(", ")}`,
    });
  }
  const { name, credential, pool, readonly } = config;
  const logger = deps.logger;
  switch (target.dialect) {
    case "POSTGRES":
      return new PostgresConnector(name, target, credential, options, pool, logger);
    case "MYSQL":
      return new MysqlConnector(name, target, credential, options, pool, logger);
    case "SQLITE":
      return new SqliteConnector(name, target, options, pool, logger, undefined, readonly);
    case "DUCKDB":
      return new DuckdbConnector(
        name,
        target,
        options,
        pool,
        logger,
        readonly,
        deps.limits?.duckdbMemoryMb,
      );
    case "LAKE":
      throw new Error("LAKE datasources are opened by the lake module");
  }
}
