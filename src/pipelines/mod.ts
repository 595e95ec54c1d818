/**
 * Pipelines: the body and its graph rules, parameter declarations and binding, the calculators,
 * and authoring (service, references, release checks, import and export).
 */
import { registerReferenceFinder } from "../datasources/mod.ts";
import { registerContentCounter } from "../workspaces/mod.ts";
import { countPipelines, referencesTo } from "./repo.ts";

// A workspace holding pipelines cannot be deleted (spec 1 §4.5 `workspace.in_use`), and a
// datasource named by any stored version cannot be (spec 3 §4.1 `datasource.in_use`).
registerContentCounter("pipelines", countPipelines);
registerReferenceFinder("pipelines", referencesTo);

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
  bodyRefusal,
  checkPipelineName,
  derivedParameters,
  findCycle,
  isCallerNode,
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
  pipelineExportView,
  pipelineFolderView,
  pipelinePurgedView,
  pipelineRowView,
  pipelineView,
} from "./views.ts";
