/**
 * Published endpoints (docs/endpoints.md): path patterns and their conflict rule, the compiled
 * matcher and binding index shared across replicas, management, and serving.
 */
// A workspace that publishes endpoints cannot be deleted (`workspace.in_use`; see services.ts).
export { countInWorkspace as countEndpoints } from "./repo.ts";

export { type BindingIndex, type BoundKey, CHANNEL, LiveEndpoints, type Snapshot } from "./live.ts";
export { type Match, Matcher } from "./matcher.ts";
export {
  conflicts,
  parseNode,
  parsePattern,
  PATH_MAX_CHARS,
  PATH_MAX_SEGMENTS,
  type Pattern,
  type Segment,
} from "./path.ts";
export { type Released, ReleasedVersions, servedAmong, type WriteDefect } from "./released.ts";
export { type PublishRules } from "./publish_rules.ts";
export {
  authorise,
  bindParameters,
  EndpointServer,
  type EndpointServerOptions,
  type ServeRequest,
  type ServeResult,
  type ServeTimings,
  VALUE_MAX_BYTES,
} from "./serve.ts";
export {
  DEFAULT_TIMEOUT_SECONDS,
  type EndpointContext,
  EndpointService,
  type EndpointServiceOptions,
} from "./service.ts";
export {
  applyPromotedEndpoints,
  endpointKeyNames,
  missingKey,
  type PromotedEndpoint,
  promotedEndpointsOf,
} from "./promoted.ts";
export {
  acceptedView,
  type BindingView,
  bindingView,
  type EndpointView,
  endpointView,
} from "./views.ts";
