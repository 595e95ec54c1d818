/** Errors as data: the catalogue and the one error type. */
export {
  AppError,
  type AppErrorArgs,
  type AppErrorConstructor,
  type AppErrorOptions,
  type ErrorBody,
  errorBody,
  type ErrorDetails,
  reviveAppError,
  toAppError,
} from "./app_error.ts";
export {
  catalogue,
  type CatalogueEntry,
  type DetailNames,
  type DetailsOf,
  type ErrorCode,
  families,
  placeholdersOf,
  renderMessage,
} from "./catalogue.ts";
