/** Learned facts: storage, visibility, conflicts and the drift check. */
export { columnFingerprint } from "./fingerprint.ts";
export {
  attachColumnFacts,
  attachTableFacts,
  checkColumnDrift,
  checkTableDrift,
  factsForDatasource,
  listFacts,
  serveFacts,
  visibleFactRecords,
} from "./read.ts";
export { recordFact, type RecordFactInput, retireFact } from "./record.ts";
export {
  DATASOURCE_WIDE_KINDS,
  FACT_SCOPES,
  FACT_TRUST,
  type FactActor,
  type FactDatasource,
  type FactRecord,
  type FactReferences,
  type FactScope,
  type FactTrust,
  type FactViewer,
  type FingerprintColumn,
  type ServedFact,
  WORKSPACE_RULE_KINDS,
} from "./types.ts";
