/** Pipelines: for now parameter declarations and binding, and the calculator catalogue. */
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
