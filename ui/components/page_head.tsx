import type { ComponentChildren } from "preact";

/** One step of the trail above a page's title: where it links and what it says. */
export type Crumb = readonly [href: string, label: ComponentChildren];

/**
 * The trail to a page, each step a link with " / " between them. A step given as `false` or an
 * empty value is left out, so a step that only some pages have (a folder) is written inline.
 */
export function Crumbs(props: { trail: readonly (Crumb | false | null | undefined | "")[] }) {
  const steps = props.trail.filter((c): c is Crumb => Boolean(c));
  return (
    <div class="crumbs">
      {steps.map(([href, label], i) => (
        <span key={href}>
          {i > 0 && " / "}
          <a href={href}>{label}</a>
        </span>
      ))}
    </div>
  );
}

/**
 * A page's heading: the trail to it, its title and the lines under it (the children) on the
 * left; its actions on the right (drawn only when there are any), or `side` drawn as it is.
 */
export function PageHead(props: {
  trail?: Parameters<typeof Crumbs>[0]["trail"];
  title: ComponentChildren;
  children?: ComponentChildren;
  actions?: ComponentChildren;
  side?: ComponentChildren;
}) {
  return (
    <div class="page-head">
      <div>
        {props.trail && <Crumbs trail={props.trail} />}
        <h1>{props.title}</h1>
        {props.children}
      </div>
      {props.actions && <div class="actions">{props.actions}</div>}
      {props.side}
    </div>
  );
}
