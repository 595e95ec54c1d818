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
import type { Connector } from "./types.ts";

export interface OpenDeps {
  logger?: Logger;
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
  switch (target.dialect) {
    case "POSTGRES":
      return new PostgresConnector(
        config.name,
        target,
        config.credential,
        options,
        config.pool,
        deps.logger,
      );
    case "MYSQL":
      return new MysqlConnector(
        config.name,
        target,
        config.credential,
        options,
        config.pool,
        deps.logger,
      );
    case "SQLITE":
      return new SqliteConnector(
        config.name,
        target,
        options,
        config.pool,
        deps.logger,
        undefined,
        config.readonly,
      );
    case "DUCKDB":
      return new DuckdbConnector(
        config.name,
        target,
        options,
        config.pool,
        deps.logger,
        config.readonly,
      );
    case "LAKE":
      throw new Error("LAKE datasources are opened by the lake module");
  }
}
