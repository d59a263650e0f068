/**
 * The daily unmatched amounts of the month, one line per level (USD), as many as the labels
 * name. Loaded lazily by the home screen, so the chart library is not part of the first
 * JavaScript.
 */
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { ChartLegend } from '../../components/ChartLegend';
import { formatAmount } from '../reports/pivot';

/** Okabe-Ito: told apart by readers with colour-vision deficiency; repeats past seven levels. */
const COLOURS = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#000000'];

export interface UnmatchedTrendChartProps {
  /** Per day the amount of each level, in the order of `labels`. */
  days: { date: string; levels: string[] }[];
  labels: string[];
  locale: string;
  dayLabel(iso: string): string;
  title: string;
}

export default function UnmatchedTrendChart({ days, labels, locale, dayLabel, title }: UnmatchedTrendChartProps) {
  const data = days.map((d) => ({
    day: d.date.slice(8),
    date: d.date,
    ...Object.fromEntries(labels.map((_, i) => [`l${i}`, Number(d.levels[i] ?? 0)])),
    raw: d.levels,
  }));
  const compact = new Intl.NumberFormat(locale, { notation: 'compact', maximumFractionDigits: 1 });
  return (
    <figure className="home-chart" aria-label={title} data-testid="home-trend-chart">
      <ResponsiveContainer width="100%" height={240}>
        <LineChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: 8 }} accessibilityLayer>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="day" tick={{ fontSize: 11 }} />
          <YAxis tickFormatter={(v: number) => compact.format(v)} tick={{ fontSize: 11 }} width={56} />
          <Tooltip
            labelFormatter={(_label, payload) => dayLabel(String((payload?.[0]?.payload as { date?: string } | undefined)?.date ?? ''))}
            formatter={(_value, name, item) => {
              const i = labels.indexOf(String(name));
              const raw = (item.payload as { raw: string[] }).raw;
              return [`${formatAmount(raw[i] ?? '0', locale)} USD`, name];
            }}
          />
          <Legend content={<ChartLegend />} itemSorter={null} />
          {labels.map((label, i) => (
            <Line key={`l${i}`} type="linear" dataKey={`l${i}`} name={label} stroke={COLOURS[i % COLOURS.length]} dot={false} strokeWidth={2} isAnimationActive={false} />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </figure>
  );
}
