/**
 * A chart's legend: per series a coloured mark and its name, in the order the series are drawn.
 * Recharts' own legend labels each mark "<name> legend icon" in English whatever the reader's
 * language; here the mark is decoration beside the name, hidden from screen readers, so the
 * legend reads as the list of names. Pass it as a Recharts Legend's content:
 *
 *   <Legend content={<ChartLegend />} itemSorter={null} />
 */
import type { LegendPayload } from 'recharts';

export function ChartLegend({ payload }: { payload?: readonly LegendPayload[] }) {
  if (!payload?.length) return null;
  return (
    <ul className="chart-legend" data-testid="chart-legend">
      {payload.map((entry, i) => (
        <li key={`${entry.value ?? ''}-${i}`} className="chart-legend__item">
          <span className={`chart-legend__mark chart-legend__mark--${entry.type === 'rect' ? 'box' : 'line'}`} style={{ background: entry.color }} aria-hidden="true" />
          {entry.value}
        </li>
      ))}
    </ul>
  );
}
