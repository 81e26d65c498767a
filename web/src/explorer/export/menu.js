// The "Export" menu: a disclosure (<details>) with four buttons, for the
// explorer and the embeds alike.
//   createExportMenu({ getData, signal }) -> <details>   (signal: an AbortSignal that removes its listeners)
// getData() returns null before the first result, else
//   {out, prepared, archs, charts: [{metric, canvas, reference}], pal, link}
// (charts in drawing order; reference: log10 values of the update chart's
// 1/sqrt(l) curve or null).
import { chartsToPng } from './png.js';
import { chartsToSvg } from './svg.js';
import { fileBase, toCsv, toJson } from './data.js';
import { download } from '../../shared/download.js';
import { fixed } from '../../shared/format.js';
import { CONFIG_FIELDS, fieldApplies } from '../../shared/fields.js';

export const EXPORTS = [
  { key: 'png', label: 'Charts as PNG' },
  { key: 'svg', label: 'Charts as SVG' },
  { key: 'csv', label: 'Numbers as CSV' },
  { key: 'json', label: 'Numbers and config as JSON' },
];

/** One line naming the config, for the images (each architecture's own field only where it is drawn: Mix-LN's share, DyT's alpha_0, HC's n, mHC's iterations, nGPT's alpha, AttnRes's blocks). */
export function configLine(c) {
  const qk = c.qk_norm === 'layernorm' ? ', QK-norm' : '';
  const block =
    c.block === 'transformer' ? ` \u00b7 transformer, ${c.heads} heads${c.causal ? ', causal' : ''}${qk}` : '';
  const own = ['mix_fraction', 'dyt_alpha', 'hc_streams', 'sinkhorn_iters', 'ngpt_alpha', 'attn_res_blocks']
    .filter((k) => CONFIG_FIELDS[k] && fieldApplies(CONFIG_FIELDS[k], c))
    .map((k) => ` \u00b7 ${CONFIG_FIELDS[k].label} ${c[k]}`)
    .join('');
  return `depth ${c.depth} \u00b7 gain ${fixed(c.gain, 2)} \u00b7 width ${c.width} \u00b7 ${c.tokens} tokens \u00b7 expansion ${c.expansion} \u00b7 ${c.activation} \u00b7 ${c.init} init \u00b7 final norm ${c.final_norm} \u00b7 seed ${c.seed}${block}${own}`;
}

export async function makeExport(kind, data) {
  const { out, prepared, archs, charts, pal, link } = data;
  const base = fileBase(out.config);
  const caption = configLine(out.config);
  switch (kind) {
    case 'png':
      return { blob: await chartsToPng({ charts, archs, pal, caption }), name: `${base}.png` };
    case 'svg': {
      const svg = chartsToSvg({
        charts: charts.map((c) => ({
          metric: c.metric,
          prepared: prepared[c.metric],
          depth: out.config.depth,
          reference: c.reference ?? null,
        })),
        archs,
        pal,
        caption,
      });
      return { blob: new Blob([svg], { type: 'image/svg+xml' }), name: `${base}.svg` };
    }
    case 'csv':
      return { blob: new Blob([toCsv(out, { link })], { type: 'text/csv;charset=utf-8' }), name: `${base}.csv` };
    case 'json':
      return { blob: new Blob([toJson(out, { link })], { type: 'application/json' }), name: `${base}.json` };
    default:
      throw new Error(`unknown export ${kind}`);
  }
}

export function createExportMenu({ getData, signal }) {
  const details = document.createElement('details');
  details.className = 'export-menu';
  const summary = document.createElement('summary');
  summary.textContent = 'Export';
  const list = document.createElement('ul');
  list.className = 'export-list';
  const status = document.createElement('p');
  status.className = 'export-status';
  status.setAttribute('role', 'status');
  for (const e of EXPORTS) {
    const li = document.createElement('li');
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'export-item';
    b.dataset.export = e.key;
    b.textContent = e.label;
    li.append(b);
    list.append(li);
  }
  details.append(summary, list, status);

  list.addEventListener('click', async (ev) => {
    const b = ev.target.closest('button[data-export]');
    if (!b) return;
    details.open = false; // a menu closes once something is chosen
    summary.focus();
    const data = getData();
    if (!data) {
      status.textContent = 'Nothing to export yet: the engine is still computing.';
      return;
    }
    try {
      const { blob, name } = await makeExport(b.dataset.export, data);
      download(blob, name, blob.type, details);
      status.textContent = `Saved ${name}`;
    } catch (err) {
      status.textContent = `Export failed: ${err.message}`;
    }
  });
  details.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape' && details.open) {
      details.open = false;
      summary.focus();
    }
  });
  // a click anywhere else closes it (composedPath: also from inside a shadow root)
  document.addEventListener(
    'click',
    (ev) => {
      if (details.open && !ev.composedPath().includes(details)) details.open = false;
    },
    { signal },
  );
  return details;
}
