/**
 * The bank overview as a stacked bar chart: one bar per period, one segment per actor.
 * Recharts draws SVG with its keyboard accessibility layer (arrow keys move between periods
 * and the tooltip reads them out); the table beside it holds the same figures as text. Loaded
 * lazily by the reports screen, so the library is not part of the first JavaScript.
 */
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { ChartLegend } from '../../components/ChartLegend';
import { formatAmount, type PivotColumn, type PivotRow } from './pivot';

/** Distinct colours that stay apart for the common forms of colour blindness (Okabe-Ito). */
const COLOURS = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#000000'];

export interface BankOverviewChartProps {
  rows: PivotRow[];
  actors: PivotColumn[];
  actorLabel(c: PivotColumn): string;
  /** A period as the table shows it (the user's date format). */
  periodLabel(period: string): string;
  locale: string;
  title: string;
}

export default function BankOverviewChart({ rows, actors, actorLabel, periodLabel, locale, title }: BankOverviewChartProps) {
  // Segments are keyed by position: actor names may hold dots, which Recharts reads as paths.
  // Heights are numbers (a chart needs no exactness); the tooltip shows the exact amounts.
  const data = rows.map((row) => {
    const point: Record<string, string | number> = { period: periodLabel(row.Period) };
    actors.forEach((c, i) => {
      const v = row[c.key];
      point[`a${i}`] = v === null || v === undefined ? 0 : Number(v);
      point[`t${i}`] = formatAmount(v, locale);
    });
    return point;
  });
  const compact = new Intl.NumberFormat(locale, { notation: 'compact', maximumFractionDigits: 1 });
  return (
    <figure className="bank-overview-chart" data-testid="bank-overview-chart" aria-label={title}>
      <figcaption className="bank-overview-chart__title">{title}</figcaption>
      <ResponsiveContainer width="100%" height={360}>
        <BarChart data={data} margin={{ top: 8, right: 8, bottom: 8, left: 8 }} accessibilityLayer>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="period" tick={{ fontSize: 11 }} />
          <YAxis tickFormatter={(v: number) => compact.format(v)} tick={{ fontSize: 11 }} width={56} />
          <Tooltip
            formatter={(_value, name, item) => {
              const i = actors.findIndex((c) => actorLabel(c) === name);
              return [i >= 0 ? String((item.payload as Record<string, unknown>)[`t${i}`] ?? '') : '', name];
            }}
          />
          <Legend content={<ChartLegend />} itemSorter={null} />
          {actors.map((c, i) => (
            <Bar key={c.key} dataKey={`a${i}`} name={actorLabel(c)} stackId="actors" fill={COLOURS[i % COLOURS.length]} isAnimationActive={false} />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}
