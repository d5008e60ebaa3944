/**
 * Renders Vega-Lite specs to SVG (vega + vega-lite, headless, no canvas) and SVG to PNG (@resvg/resvg-js).
 * The libraries are imported on first use so `import 'agentrl'` does not load them.
 */
export async function renderChartSvg(spec: Readonly<Record<string, unknown>>): Promise<string> {
  const [vega, vl] = await Promise.all([import('vega'), import('vega-lite')]);
  const compiled = vl.compile(spec as never).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** What a chart shows at one step: its x position in the SVG (px) and each series' value there. */
export interface ChartReadoutStep {
  readonly step: number;
  readonly x: number;
  readonly values: readonly { readonly series: string; readonly value: number }[];
}

/**
 * The hover readout of a chart drawn by {@link renderChartSvg} from the same spec: every step that has a value, with
 * its x position in the SVG's own pixels (padding, plus the plot's origin, plus the x scale, as vega lays the view out) and the raw
 * value of each series there (`value` of the spec's data rows, not the smoothed line). Steps ascending.
 */
export async function chartReadout(spec: Readonly<Record<string, unknown>>): Promise<ChartReadoutStep[]> {
  const [vega, vl] = await Promise.all([import('vega'), import('vega-lite')]);
  const view = new vega.View(vega.parse(vl.compile(spec as never).spec), { renderer: 'none' });
  try {
    await view.runAsync();
    const x = view.scale('x') as (v: number) => number;
    // The SVG renderer translates the root group by the padding plus the origin (the space autosize gave the axes).
    const pad = view.padding();
    const ox = view.origin()[0] + (typeof pad === 'number' ? pad : (pad.left ?? 0));
    const rows = ((spec['data'] as { values?: unknown[] } | undefined)?.values ?? []) as { step: number; value: number; series: string }[];
    const bySteps = new Map<number, { series: string; value: number }[]>();
    for (const r of rows) bySteps.set(r.step, [...(bySteps.get(r.step) ?? []), { series: r.series, value: r.value }]);
    return [...bySteps.entries()].sort((a, b) => a[0] - b[0]).map(([step, values]) => ({ step, x: ox + x(step), values }));
  } finally {
    view.finalize();
  }
}

/** Rasterises an SVG to PNG bytes at `scale` × its size (system fonts for text). */
export async function svgToPng(svg: string, scale = 2): Promise<Buffer> {
  const { Resvg } = await import('@resvg/resvg-js');
  const r = new Resvg(svg, { fitTo: { mode: 'zoom', value: scale }, background: 'white', font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' } });
  return r.render().asPng();
}
