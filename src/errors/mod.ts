/** Errors as data: the catalogue and the one error type. */
export {
  AppError,
  type AppErrorOptions,
  type ErrorBody,
  errorBody,
  type ErrorDetails,
} from "./app_error.ts";
export { catalogue, type CatalogueEntry, type ErrorCode, renderMessage } from "./catalogue.ts";
