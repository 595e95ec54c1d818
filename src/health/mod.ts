/** Health, readiness and build information. */
export { type BuildInfo, readBuildInfo } from "./build_info.ts";
export {
  type ComponentName,
  type HealthReport,
  HealthService,
  type Probe,
  type Status,
} from "./service.ts";
export { buildInfoView, healthView, readyView } from "./views.ts";
