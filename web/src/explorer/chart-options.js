// uPlot options for one of the three charts: a log y axis (log10 of the values
// on a linear scale, ticks at whole decades), the shared layer axis, one
// solid/dashed line per arch plus its dotted overflow line, and the lanes for
// zero and overflow drawn in draw hooks.
import { ARCH_BY_KEY, REFERENCE_LINE } from '../shared/archs.js';
import { axisStyle, layerAxis, syncedCursor, tickRoom } from '../shared/chart-host.js';
import { decadeTicks, logLabel } from '../shared/log-axis.js';
import { OVERFLOW } from './series.js';

const LANE_FONT = '600 11px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

/**
 * `view()` returns the chart's current {prepared, depth}; options read it lazily
 * so setData() on a reused instance picks up new ranges. `hooks` are extra uPlot
 * hooks (draw, setCursor).
 */
export function chartOptions({ archs, reference, xLabel, pal, view, hooks, syncKey }) {
  const series = [{ label: xLabel }];
  for (const arch of archs) {
    const a = ARCH_BY_KEY[arch];
    series.push({
      label: a.label,
      stroke: pal.arch[arch],
      width: 2,
      dash: a.dash,
      points: { show: false },
      spanGaps: false,
    });
  }
  for (const arch of archs) {
    series.push({
      label: `${ARCH_BY_KEY[arch].label}: overflow`,
      stroke: pal.arch[arch],
      width: 1.5,
      dash: [2, 4],
      points: { show: false },
      spanGaps: false,
    });
  }
  if (reference)
    series.push({
      label: reference,
      stroke: pal.reference,
      width: 1.25,
      dash: REFERENCE_LINE.dash,
      points: { show: false },
    });

  const axis = axisStyle(pal);
  return {
    legend: { show: false },
    pxAlign: 0,
    cursor: syncedCursor(pal, syncKey),
    scales: {
      x: { time: false, range: () => [0, Math.max(1, view().depth)] },
      // y holds log10 of the values (see series.js); ticks are labelled 10^k
      y: { range: (u) => laneRange(u, view().prepared) },
    },
    axes: [
      layerAxis(pal, xLabel),
      {
        ...axis,
        size: 50,
        gap: 4,
        splits: decadeSplits(view),
        values: (u, splits) => splits.map(logLabel),
      },
    ],
    series,
    hooks: {
      drawClear: [(u) => drawLaneBands(u, view().prepared, pal)],
      draw: [(u) => drawLaneMarks(u, view().prepared, archs, pal), ...(hooks.draw ?? [])],
      setCursor: hooks.setCursor ?? [],
    },
  };
}

// Room in CSS pixels between a lane's line and the plot's edge: the lane's
// label sits there, clear of the dotted line.
const LANE_ROOM = 18;

/** The y range: the data's, widened so each lane in use has LANE_ROOM pixels beyond it. */
function laneRange(u, { scale, lanes }) {
  const n = (lanes.top !== null) + (lanes.bottom !== null);
  if (!n) return scale;
  const height = u.bbox.height / devicePixelRatio || Math.max(1, u.height - 34);
  const inner = (lanes.top ?? scale[1]) - (lanes.bottom ?? scale[0]) || 1;
  const room = (inner * LANE_ROOM) / Math.max(1, height - n * LANE_ROOM);
  return [lanes.bottom !== null ? lanes.bottom - room : scale[0], lanes.top !== null ? lanes.top + room : scale[1]];
}

/** Ticks at whole decades, thinned to fit the height; none on the lanes. */
function decadeSplits(view) {
  return (u, axisIdx, min, max) => {
    const { lanes } = view().prepared;
    const lo = lanes.bottom !== null ? lanes.bottom + 1 : min;
    const hi = lanes.top !== null ? lanes.top - 1 : max;
    return decadeTicks(lo, hi, tickRoom(u, 24));
  };
}

// A faint band behind each lane, so "overflow" and "zero" read as places, not values.
function drawLaneBands(u, prepared, pal) {
  const { ctx, bbox } = u;
  const { lanes } = prepared;
  ctx.save();
  ctx.fillStyle = pal.lane;
  if (lanes.top !== null) {
    const y = u.valToPos(lanes.top, 'y', true);
    ctx.fillRect(bbox.left, bbox.top, bbox.width, y - bbox.top + 7 * devicePixelRatio);
  }
  if (lanes.bottom !== null) {
    const y = u.valToPos(lanes.bottom, 'y', true);
    ctx.fillRect(bbox.left, y - 7 * devicePixelRatio, bbox.width, bbox.top + bbox.height - y + 7 * devicePixelRatio);
  }
  ctx.restore();
}

// The lane labels, and a triangle where each arch's numbers run off the chart.
function drawLaneMarks(u, prepared, archs, pal) {
  const { ctx, bbox } = u;
  const { lanes, cls } = prepared;
  const dpr = devicePixelRatio;
  ctx.save();
  ctx.font = LANE_FONT.replace('11px', `${11 * dpr}px`);
  ctx.fillStyle = pal.laneText;
  ctx.textAlign = 'right';
  if (lanes.top !== null) {
    ctx.textBaseline = 'top';
    ctx.fillText('overflow (not finite) ↑', bbox.left + bbox.width - 4 * dpr, bbox.top + 2 * dpr);
  }
  if (lanes.bottom !== null) {
    ctx.textBaseline = 'bottom';
    ctx.fillText(
      `exactly 0, drawn at ${logLabel(lanes.bottom)}`,
      bbox.left + bbox.width - 4 * dpr,
      bbox.top + bbox.height - 2 * dpr,
    );
  }
  if (lanes.top !== null) {
    const y = u.valToPos(lanes.top, 'y', true);
    const x0 = prepared.x;
    archs.forEach((arch) => {
      const c = cls[arch];
      ctx.fillStyle = pal.arch[arch];
      ctx.strokeStyle = pal.surface;
      ctx.lineWidth = 1 * dpr;
      for (let i = 0; i < c.length; i++) {
        if (c[i] !== OVERFLOW) continue;
        const edge = (i > 0 && c[i - 1] !== OVERFLOW) || (i + 1 < c.length && c[i + 1] !== OVERFLOW);
        const alone = c.length === 1 || (i === 0 && c.every((v) => v === OVERFLOW));
        if (!edge && !alone) continue;
        const x = u.valToPos(x0[i], 'x', true);
        const s = 5 * dpr;
        ctx.beginPath();
        ctx.moveTo(x, y - s);
        ctx.lineTo(x + s, y + s * 0.8);
        ctx.lineTo(x - s, y + s * 0.8);
        ctx.closePath();
        ctx.fill();
        ctx.stroke();
      }
    });
  }
  ctx.restore();
}

/** The data array for uPlot: [x, main per arch, overflow per arch, reference?]. */
export function chartData(prepared, archs, reference) {
  const data = [prepared.x];
  for (const arch of archs) data.push(prepared.main[arch]);
  for (const arch of archs) data.push(prepared.over[arch]);
  if (reference) data.push(reference);
  return data;
}
