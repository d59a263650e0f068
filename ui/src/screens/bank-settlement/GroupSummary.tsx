/**
 * Under the manual dialog's grids: per side how many records are ticked and the sum of their
 * amounts, the difference left minus right, and what the server makes of the group (inside or
 * outside the level's tolerance, or why it would refuse it without force).
 */
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { formatValue, type FormatContext } from '../../engine/fields';
import type { ColumnMeta, Row } from '../../engine/types';
import { codeText, dialogSides, errorText, kindCountText, type GroupEvaluation, type LevelDef, type Side } from './recon';
import { bySide, groupFigures, type SideFigures } from './group';
import { useFormatContext } from './RecordGrid';
import type { Evaluation } from './useGroupEvaluation';

const AMOUNT: ColumnMeta = { field: 'amount', type: 'decimal', label: '', sortable: false, ops: [], scale: 2 };

/** An amount as the dialog's grids show it (2 decimals, the reader's grouping), with its currency. */
export function money(amount: string, currency: string | null, ctx: FormatContext): string {
  return `${formatValue(amount, AMOUNT, ctx)} ${currency ?? ''}`.trim();
}

const NONE = '–';

export function GroupSummary({ level, item1, item2, evaluation }: { level: LevelDef; item1: readonly Row[]; item2: readonly Row[]; evaluation: Evaluation }) {
  const { t, i18n } = useTranslation();
  const ctx = useFormatContext();
  if (item1.length === 0 && item2.length === 0) return null;

  const sides = dialogSides(level);
  const figures = groupFigures(level, bySide(level, item1, item2), evaluation.state === 'done' ? evaluation.data : null);
  const sideOf = (slot: 'item1' | 'item2'): Side => ((slot === 'item1') === (level.dialog === 'left') ? 'left' : 'right');
  const sumText = (f: SideFigures) => (f.mixed ? t('recon.manual.group.mixed') : f.sum === null ? NONE : money(f.sum, f.currency, ctx));
  const lower = (label: string) => t(label).toLocaleLowerCase(i18n.language);
  const both = item1.length > 0 && item2.length > 0;

  return (
    <div className="recon-group" data-testid="manual-group" aria-live="polite">
      <dl className="recon-group__sums">
        {(['item1', 'item2'] as const).map((slot) => {
          const side = sides[slot];
          const f = figures[sideOf(slot)];
          return (
            <div key={slot} className="recon-group__sum" data-testid={`manual-sum-${slot}`}>
              <dt>{kindCountText(t, { kind: side.kind, label: side.label, count: f.count })}</dt>
              <dd>{sumText(f)}</dd>
            </div>
          );
        })}
        {both && (
          <div className="recon-group__sum" data-testid="manual-difference">
            <dt>{t('recon.manual.group.difference', { left: lower(level.left.label), right: lower(level.right.label) })}</dt>
            <dd>{figures.difference ? money(figures.difference.amount, figures.difference.currency, ctx) : NONE}</dd>
          </div>
        )}
      </dl>
      {both && <Verdict evaluation={evaluation} ctx={ctx} />}
    </div>
  );
}

function Verdict({ evaluation, ctx }: { evaluation: Evaluation; ctx: FormatContext }) {
  const { t } = useTranslation();
  const line = (text: string, tone: 'success' | 'warning' | 'muted', state: string) => (
    <p className={`recon-group__verdict ${tone === 'muted' ? 'muted' : `recon-group__verdict--${tone}`}`} data-testid="manual-verdict" data-state={state}>
      {text}
    </p>
  );
  switch (evaluation.state) {
    case 'pending':
      return line(t('recon.manual.group.checking'), 'muted', 'pending');
    case 'failed':
      return line(errorText(evaluation.error, t, 'recon.manual.group.failed'), 'warning', 'failed');
    case 'done': {
      const { refusal } = evaluation.data;
      if (refusal) return line(codeText(t, refusal.code, refusalParams(evaluation.data, ctx), refusal.error), 'warning', 'refused');
      return line(verdictText(evaluation.data, t, ctx), evaluation.data.inside ? 'success' : 'warning', evaluation.data.inside ? 'inside' : 'outside');
    }
    default:
      return null;
  }
}

const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;

/** A refusal's parameters for the reader: the amounts of a group outside its tolerance formatted as the sums above. */
function refusalParams({ refusal, leftCurrency }: GroupEvaluation, ctx: FormatContext): Record<string, unknown> | null {
  if (!refusal?.params || refusal.code !== 'recon.groupOutsideTolerance') return refusal?.params ?? null;
  const out: Record<string, unknown> = { ...refusal.params };
  for (const name of ['difference', 'tolerance']) {
    const value = out[name];
    if (typeof value === 'string' && PLAIN_DECIMAL.test(value)) out[name] = money(value, leftCurrency, ctx);
  }
  return out;
}

/** "Inside the tolerance (±1.00, 2 days) · 1 day apart · would be matched". */
export function verdictText(e: GroupEvaluation, t: TFunction, ctx: FormatContext): string {
  const parts = [t(e.inside ? 'recon.manual.group.inside' : 'recon.manual.group.outside', { tolerance: toleranceText(e, t, ctx) })];
  if (e.dateLagDays) parts.push(t('recon.chain.lag', { count: e.dateLagDays }));
  parts.push(t('recon.manual.group.result', { status: t(`recon.status.${e.status}`).toLocaleLowerCase(ctx.locale) }));
  return parts.join(' · ');
}

function toleranceText({ tolerance, leftCurrency }: GroupEvaluation, t: TFunction, ctx: FormatContext): string {
  const parts: string[] = [];
  if (tolerance.amount !== null) parts.push(t('recon.manual.group.toleranceAmount', { amount: money(tolerance.amount, leftCurrency, ctx) }));
  if (tolerance.days !== null) parts.push(t('recon.manual.group.toleranceDays', { count: tolerance.days }));
  if (tolerance.currencyPct !== null) parts.push(t('recon.manual.group.toleranceCurrency', { percent: tolerance.currencyPct }));
  return parts.length > 0 ? parts.join(', ') : t('recon.manual.group.noTolerance');
}
