/**
 * Pipelines: the body and its graph rules, parameter declarations and binding, the calculators,
 * and authoring (service, references, release checks, import and export).
 */
// A workspace holding pipelines cannot be deleted (`workspace.in_use`), and a datasource named by
// any stored version cannot be (`datasource.in_use`): services.ts hands these to those services.
export { countPipelines, referencesTo as datasourceReferences } from "./repo.ts";
export { type CheckProbe, runChecks } from "./checks.ts";
export {
  applyReleasedImport,
  exportPipeline,
  importPipeline,
  type VerifiedImport,
  verifyReleasedImport,
} from "./import_export.ts";
export type { CheckRun, ListFilter, PipelineListRow } from "./repo.ts";
export {
  PipelineService,
  type PipelineServiceOptions,
  type PipelineView,
  type ReleaseInput,
  type ScopedContext,
} from "./service.ts";
export {
  coerceParameters,
  DEFAULT_PARAMETER_CAPS,
  PARAMETER_TYPES,
  type ParameterCaps,
  type ParameterDeclaration,
  type ParameterDeclarations,
  type ParameterDefect,
  parameterError,
  type ParameterType,
  type ParameterValue,
  parseDeclarations,
} from "./parameters.ts";
export {
  type Calculator,
  getCalculator,
  isParamRef,
  listCalculators,
  runCalculator,
} from "./calculators.ts";
export {
  bodyParts,
  bodyRefusal,
  checkPipelineName,
  derivedParameters,
  findCycle,
  isCallerNode,
  NODE_ID,
  NODE_TYPES,
  type NodeType,
  parseBody,
  type PipelineBody,
  type PipelineNode,
  type ReleaseCheck,
  STAGING,
  topologicalOrder,
} from "./body.ts";
export { nodeSubset } from "./node_subset.ts";
export {
  checkRunsView,
  checksView,
  type ParameterView,
  pipelineExportView,
  pipelineFolderView,
  pipelinePurgedView,
  pipelineRowView,
  pipelineView,
} from "./views.ts";
