/** Pipelines: for now the parameter declarations and their binding (the entity arrives later). */
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
