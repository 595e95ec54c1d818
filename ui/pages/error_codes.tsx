import { BaseLayout, type Visitor } from "../layouts/base.tsx";
import { Head } from "../components/head.tsx";

export interface ErrorCodeRow {
  code: string;
  status: number;
  message: string;
  user_message: string;
}

/** `/docs/errors`: every error code, each with an anchor that `doc_url` points at. */
export function ErrorCodesPage(props: { rows: ErrorCodeRow[]; visitor?: Visitor }) {
  return (
    <BaseLayout title="Error codes" visitor={props.visitor}>
      <h1>Error codes</h1>
      <p>
        Every error answer carries <code>error.code</code>; its <code>doc_url</code> links here.
      </p>
      <table>
        <Head cols={["Code", "HTTP", "Meaning"]} />
        <tbody>
          {props.rows.map((row) => (
            <tr id={row.code} key={row.code}>
              <td>
                <code>{row.code}</code>
              </td>
              <td>{row.status}</td>
              <td>
                {row.user_message}
                <div class="muted">{row.message}</div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </BaseLayout>
  );
}
