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

/** Rasterises an SVG to PNG bytes at `scale` × its size (system fonts for text). */
export async function svgToPng(svg: string, scale = 2): Promise<Buffer> {
  const { Resvg } = await import('@resvg/resvg-js');
  const r = new Resvg(svg, { fitTo: { mode: 'zoom', value: scale }, background: 'white', font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' } });
  return r.render().asPng();
}
