/** The product documentation pages (docs/*.md), for the tool endpoint and the UI. */
export { type DocPage, type DocSummary, getDoc, listDocs } from "./pages.ts";
