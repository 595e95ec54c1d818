/** Pipelines: the body and its graph rules, parameter declarations and binding, the calculators. */
export {
  coerceParameters,
  PARAMETER_TYPES,
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
