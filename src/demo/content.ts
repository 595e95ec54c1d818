/**
 * What the demo workspace holds: two read-only datasources over the generated files, released SQL
 * templates (three share one imported snippet), and four released pipelines under `demo/`, one
 * per node type worth seeing:
 *
 * - `demo/top_customers`: a parameterised report (declared parameters with defaults, an optional
 *   filter steering the template's control flow, `LIMIT :limit`).
 * - `demo/revenue_vs_target`: two staged reads, DuckDB and SQLite, joined in the staging DuckDB.
 * - `demo/monthly_revenue`: two CALCULATOR nodes derive the month's first and last day.
 * - `demo/top_customers_summary`: a PIPELINE node runs the pinned report as a child execution
 *   into a staged table that the caller node summarises.
 */
import { DEMO_COUNTRIES, DEMO_SEGMENTS, type DemoFiles } from "./data.ts";

export const SHOP = "demo_shop";
export const CRM = "demo_crm";

/** A datasource create body: read-only, and opened read-only by the driver (`jdbc`). */
function readOnlySource(
  name: string,
  display_name: string,
  dialect: string,
  jdbc_url: string,
  jdbc: Record<string, unknown>,
): Record<string, unknown> {
  return {
    name,
    display_name,
    dialect,
    jdbc_url,
    credential: { kind: "none" },
    readonly: true,
    properties: { jdbc },
  };
}

export function demoDatasources(files: DemoFiles): Record<string, unknown>[] {
  return [
    readOnlySource(SHOP, "Demo shop (DuckDB)", "DUCKDB", `jdbc:duckdb:${files.shop}`, {
      access_mode: "READ_ONLY",
    }),
    readOnlySource(CRM, "Demo CRM (SQLite)", "SQLITE", `jdbc:sqlite:${files.crm}`, {
      readonly: true,
    }),
  ];
}

export interface DemoTemplate {
  id: string;
  dialect: "DUCKDB" | "SQLITE";
  display_name: string;
  description: string;
  /** Imported template ids by alias; pinned at their released version when seeded. */
  imports?: Record<string, string>;
  body: string;
}

const COMPLETED = "demo/shop/completed_lines";

/** In dependency order: an imported template comes before its importers. */
export const DEMO_TEMPLATES: DemoTemplate[] = [
  {
    id: COMPLETED,
    dialect: "DUCKDB",
    display_name: "Completed order lines",
    description: "A CTE of the lines of completed orders with their amount; imported by others.",
    body: `completed_lines AS (
  SELECT o.order_id, o.customer_id, o.order_date, l.product_id, l.quantity * l.unit_price AS amount
  FROM orders o JOIN order_lines l ON l.order_id = o.order_id
  WHERE o.status = 'completed'
)`,
  },
  {
    id: "demo/shop/revenue_by_country",
    dialect: "DUCKDB",
    display_name: "Revenue by country",
    description: "Completed orders and revenue per customer country.",
    imports: { completed: COMPLETED },
    body: `WITH {% render 'completed' %}
SELECT c.country, count(DISTINCT cl.order_id) AS orders, sum(cl.amount) AS revenue
FROM completed_lines cl JOIN customers c ON c.customer_id = cl.customer_id
GROUP BY c.country`,
  },
  {
    id: "demo/shop/daily_revenue",
    dialect: "DUCKDB",
    display_name: "Daily revenue",
    description: "Completed orders and revenue per day between :month_start and :month_end.",
    imports: { completed: COMPLETED },
    body: `WITH {% render 'completed' %}
SELECT order_date AS day, count(DISTINCT order_id) AS orders, sum(amount) AS revenue
FROM completed_lines
WHERE order_date BETWEEN CAST(:month_start AS DATE) AND CAST(:month_end AS DATE)
GROUP BY order_date
ORDER BY order_date`,
  },
  {
    id: "demo/shop/top_customers",
    dialect: "DUCKDB",
    display_name: "Top customers",
    description: "Customers of one country ranked by revenue; the segment filter is optional.",
    imports: { completed: COMPLETED },
    body: `WITH {% render 'completed' %}
SELECT c.customer_id, c.name, c.country, c.segment,
       count(DISTINCT cl.order_id) AS orders, sum(cl.amount) AS revenue
FROM completed_lines cl JOIN customers c ON c.customer_id = cl.customer_id
WHERE c.country = :country{% if params.segment %} AND c.segment = :segment{% endif %}
GROUP BY c.customer_id, c.name, c.country, c.segment
HAVING count(DISTINCT cl.order_id) >= :min_orders
ORDER BY revenue DESC, c.customer_id
LIMIT :limit`,
  },
  {
    id: "demo/crm/targets_by_country",
    dialect: "SQLITE",
    display_name: "Sales targets by country",
    description: "The year's sales target per country with its region and account manager.",
    body: `SELECT c.code AS country, c.name AS country_name, c.region, c.account_manager,
       SUM(t.target_amount) AS target
FROM countries c JOIN sales_targets t ON t.country = c.code
GROUP BY c.code, c.name, c.region, c.account_manager`,
  },
  {
    id: "demo/staging/revenue_vs_target",
    dialect: "DUCKDB",
    display_name: "Revenue against target",
    description: "Joins the staged tables `revenue` and `targets` inside the staging DuckDB.",
    body: `SELECT t.country, t.country_name, t.region, t.account_manager,
       coalesce(r.orders, 0) AS orders, coalesce(r.revenue, 0) AS revenue, t.target,
       round(100 * coalesce(r.revenue, 0) / t.target, 1) AS attainment_pct
FROM targets t LEFT JOIN revenue r ON r.country = t.country
ORDER BY t.country`,
  },
];

export interface DemoPipeline {
  name: string;
  /** The body, given the released version of each template and pipeline seeded before it. */
  body(pins: DemoPins): Record<string, unknown>;
}

export interface DemoPins {
  template(id: string): { id: string; version: number };
  pipeline(name: string): { id: string; version: number };
}

const country = (def: string) => ({
  type: "string",
  default: def,
  enum: [...DEMO_COUNTRIES],
  description: "Customer country (ISO code)",
});

/**
 * A demo pipeline: its name written once, the body's head filled in (`name`, the two titles,
 * `schema_version`), then what `rest` adds given the pins.
 */
function demoPipeline(
  name: string,
  titles: { display_name: string; description: string },
  rest: (pins: DemoPins) => Record<string, unknown>,
): DemoPipeline {
  return { name, body: (pins) => ({ name, ...titles, schema_version: 1, ...rest(pins) }) };
}

/** A DQL node on `source` that renders the pinned template `template`, with `more` after. */
function templated(
  pins: DemoPins,
  id: string,
  source: string,
  template: string,
  more: Record<string, unknown> = {},
) {
  return { id, type: "DQL", source, template: pins.template(template), ...more };
}

/** A CALCULATOR node: `calculator` over `inputs`, its value written to the parameter `id`. */
function derive(
  id: string,
  calculator: string,
  inputs: Record<string, unknown>,
  more: Record<string, unknown> = {},
) {
  return {
    id,
    type: "CALCULATOR",
    calculator: { name: calculator, inputs, writes: { value: id } },
    ...more,
  };
}

/** In dependency order: a child pipeline comes before its parents. */
export const DEMO_PIPELINES: DemoPipeline[] = [
  demoPipeline("demo/top_customers", {
    display_name: "Top customers (report)",
    description: "A parameterised report: the best customers of a country by revenue.",
  }, (pins) => ({
    parameters: {
      country: country("DE"),
      segment: {
        type: "string",
        required: false,
        enum: [...DEMO_SEGMENTS],
        description: "Only this customer segment (optional)",
      },
      min_orders: {
        type: "integer",
        default: 1,
        min: 1,
        description: "Least completed orders a customer needs",
      },
      limit: { type: "integer", default: 10, min: 1, max: 100, description: "Rows to return" },
    },
    nodes: [templated(pins, "top_customers", SHOP, "demo/shop/top_customers")],
  })),
  demoPipeline("demo/revenue_vs_target", {
    display_name: "Revenue against target",
    description: "Two staged reads (DuckDB shop, SQLite CRM) joined in the staging database.",
  }, (pins) => ({
    nodes: [
      templated(pins, "revenue", SHOP, "demo/shop/revenue_by_country", {
        output: { target: "tempdb", table: "revenue" },
      }),
      templated(pins, "targets", CRM, "demo/crm/targets_by_country", {
        output: { target: "tempdb", table: "targets" },
      }),
      templated(pins, "report", "tempdb", "demo/staging/revenue_vs_target", {
        depends_on: ["revenue", "targets"],
      }),
    ],
  })),
  demoPipeline("demo/monthly_revenue", {
    display_name: "Monthly revenue by day",
    description: "Calculators derive the month around `day`; the read uses both derived dates.",
  }, (pins) => ({
    parameters: {
      day: { type: "date", default: "2025-06-15", description: "Any day of the month to show" },
    },
    nodes: [
      derive("month_start", "date_trunc", { date: { param: "day" }, unit: "month" }),
      derive("month_end", "date_add", { date: { param: "month_start" }, months: 1, days: -1 }, {
        depends_on: ["month_start"],
      }),
      templated(pins, "daily", SHOP, "demo/shop/daily_revenue", {
        depends_on: ["month_start", "month_end"],
      }),
    ],
  })),
  demoPipeline("demo/top_customers_summary", {
    display_name: "Top five customers, summarised",
    description: "Runs the pinned top-customers report as a child, then totals its rows.",
  }, (pins) => ({
    parameters: { country: country("FR") },
    nodes: [
      {
        id: "top",
        type: "PIPELINE",
        pipeline: pins.pipeline("demo/top_customers"),
        parameters: { country: { param: "country" }, limit: 5 },
        output: { target: "tempdb", table: "top_customers" },
      },
      {
        id: "summary",
        type: "DQL",
        source: "tempdb",
        sql: "SELECT count(*) AS customers, sum(orders) AS orders, sum(revenue) AS revenue " +
          "FROM top_customers",
        depends_on: ["top"],
      },
    ],
  })),
];
