/**
 * A grid's column layout as its user sets it up, kept on the server per user: the order of the
 * columns, which are hidden, which are pinned (frozen at the start) and the widths dragged to.
 * One implementation for every grid (the engine's GridView and the hand-written task table):
 * the rules that make a stored layout safe to use, whatever it holds, and the moves a user makes.
 *
 * Invariant of every layout these functions return: `order` holds each known column once, the
 * pinned ones first (a frozen column must come before the others in react-data-grid), so the
 * order is also the order on screen.
 */

export const MIN_COLUMN_WIDTH = 50;
export const MAX_COLUMN_WIDTH = 2000;

/** A column the grid knows, in its default (metadata) order, with its default state. */
export interface LayoutColumn {
  key: string;
  hidden?: boolean;
  pinned?: boolean;
}

export interface ColumnLayout {
  order: string[];
  hidden: string[];
  pinned: string[];
  /** Widths the user dragged to, in px; the others take the grid's default. */
  widths: Record<string, number>;
}

export interface SanitizeOptions {
  /**
   * Where a column the stored layout does not know (added to the grid since it was saved) goes:
   * `inPlace` (the default) beside its neighbours of the default order, with its default hidden
   * and pinned state; `end` appended, the stored hidden and pinned lists taken as the user's
   * whole choice (the task table's older rule).
   */
  newColumns?: 'inPlace' | 'end';
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The known keys of a stored list, each once, in the stored order. */
function knownKeys(list: unknown, known: ReadonlySet<string>): string[] {
  if (!Array.isArray(list)) return [];
  return [...new Set(list.filter((k): k is string => typeof k === 'string' && known.has(k)))];
}

/** Pinned columns first, each group in its own order. */
function pinnedFirst(order: readonly string[], pinned: readonly string[]): string[] {
  const isPinned = new Set(pinned);
  return [...order.filter((k) => isPinned.has(k)), ...order.filter((k) => !isPinned.has(k))];
}

/** Hidden and pinned lists in the layout's order (stable, so equal layouts serialise equally). */
function inOrder(order: readonly string[], keys: Iterable<string>): string[] {
  const set = new Set(keys);
  return order.filter((k) => set.has(k));
}

export function clampWidth(width: number): number {
  return Math.min(MAX_COLUMN_WIDTH, Math.max(MIN_COLUMN_WIDTH, Math.round(width)));
}

/** The layout of a user who set nothing up: the default order, hidden and pinned states. */
export function defaultLayout(columns: readonly LayoutColumn[]): ColumnLayout {
  const pinned = columns.filter((c) => c.pinned).map((c) => c.key);
  const order = pinnedFirst(
    columns.map((c) => c.key),
    pinned,
  );
  return { order, hidden: inOrder(order, columns.filter((c) => c.hidden).map((c) => c.key)), pinned: inOrder(order, pinned), widths: {} };
}

/**
 * A stored layout made safe to use: unknown columns dropped (from every list and the widths),
 * each column once, columns added since placed as `options.newColumns` says, widths whole
 * pixels between the bounds, pinned columns first. Anything that is not a layout gives the
 * default one.
 */
export function sanitizeLayout(stored: unknown, columns: readonly LayoutColumn[], options: SanitizeOptions = {}): ColumnLayout {
  const fallback = defaultLayout(columns);
  if (!isRecord(stored)) return fallback;
  const known = new Set(columns.map((c) => c.key));
  const storedOrder = knownKeys(stored.order, known);
  const storedHidden = knownKeys(stored.hidden, known);
  const storedPinned = knownKeys(stored.pinned, known);
  const defaults = columns.map((c) => c.key);

  let order: string[];
  let hidden: string[];
  let pinned: string[];
  if (options.newColumns === 'end') {
    order = [...storedOrder, ...defaults.filter((k) => !storedOrder.includes(k))];
    hidden = Array.isArray(stored.hidden) ? storedHidden : fallback.hidden;
    pinned = Array.isArray(stored.pinned) ? storedPinned : fallback.pinned;
  } else {
    // Each new column goes after the nearest column that precedes it in the default order
    // (at the start when none does), taken in default order so that new neighbours stay together.
    const seen = new Set(storedOrder);
    order = [...storedOrder];
    defaults.forEach((key, index) => {
      if (order.includes(key)) return;
      const before = defaults
        .slice(0, index)
        .reverse()
        .find((k) => order.includes(k));
      order.splice(before === undefined ? 0 : order.indexOf(before) + 1, 0, key);
    });
    const byDefault = (list: string[], flag: 'hidden' | 'pinned') => [...list, ...columns.filter((c) => !seen.has(c.key) && c[flag]).map((c) => c.key)];
    hidden = byDefault(
      storedHidden.filter((k) => seen.has(k)),
      'hidden',
    );
    pinned = byDefault(
      storedPinned.filter((k) => seen.has(k)),
      'pinned',
    );
  }
  order = pinnedFirst(order, pinned);

  const widths: Record<string, number> = {};
  if (isRecord(stored.widths)) {
    for (const [k, w] of Object.entries(stored.widths)) {
      if (known.has(k) && typeof w === 'number' && Number.isFinite(w)) widths[k] = clampWidth(w);
    }
  }
  return { order, hidden: inOrder(order, hidden), pinned: inOrder(order, pinned), widths };
}

/** The order after dropping `moved` on `target`: it takes the target's place. */
export function moveKey(order: readonly string[], moved: string, target: string): string[] {
  if (moved === target || !order.includes(moved) || !order.includes(target)) return [...order];
  const without = order.filter((k) => k !== moved);
  const at = without.indexOf(target);
  without.splice(order.indexOf(moved) < order.indexOf(target) ? at + 1 : at, 0, moved);
  return without;
}

/**
 * A header dropped on another: the column takes the target's place and its pinned state, so a
 * column dropped among the pinned ones is pinned, and one dropped among the others is not.
 */
export function reorderColumn(layout: ColumnLayout, moved: string, target: string): ColumnLayout {
  if (moved === target || !layout.order.includes(moved) || !layout.order.includes(target)) return layout;
  const pinned = layout.pinned.filter((k) => k !== moved);
  if (layout.pinned.includes(target)) pinned.push(moved);
  const order = pinnedFirst(moveKey(layout.order, moved, target), pinned);
  return { ...layout, order, pinned: inOrder(order, pinned), hidden: inOrder(order, layout.hidden) };
}

/** One step earlier (-1) or later (+1) in the order, taking the neighbour's place (and pin). */
export function stepColumn(layout: ColumnLayout, key: string, step: -1 | 1): ColumnLayout {
  const neighbour = layout.order[layout.order.indexOf(key) + step];
  return layout.order.includes(key) && neighbour !== undefined ? reorderColumn(layout, key, neighbour) : layout;
}

/** Shows or hides a column; the last shown column stays shown (a grid without columns is no use). */
export function setHidden(layout: ColumnLayout, key: string, hidden: boolean): ColumnLayout {
  if (!layout.order.includes(key) || layout.hidden.includes(key) === hidden) return layout;
  if (hidden && shownKeys(layout).length <= 1) return layout;
  return { ...layout, hidden: inOrder(layout.order, hidden ? [...layout.hidden, key] : layout.hidden.filter((k) => k !== key)) };
}

/** Pins a column (it goes to the end of the pinned ones) or unpins it (first after them). */
export function setPinned(layout: ColumnLayout, key: string, pinned: boolean): ColumnLayout {
  if (!layout.order.includes(key) || layout.pinned.includes(key) === pinned) return layout;
  const pins = pinned ? [...layout.pinned, key] : layout.pinned.filter((k) => k !== key);
  const rest = layout.order.filter((k) => k !== key && !pins.includes(k));
  const order = pinned ? [...pins, ...rest] : [...pins, key, ...rest];
  return { ...layout, order, pinned: pins, hidden: inOrder(order, layout.hidden) };
}

export function setWidth(layout: ColumnLayout, key: string, width: number): ColumnLayout {
  if (!layout.order.includes(key) || !Number.isFinite(width)) return layout;
  const w = clampWidth(width);
  return layout.widths[key] === w ? layout : { ...layout, widths: { ...layout.widths, [key]: w } };
}

/** The columns on screen, in their order. */
export function shownKeys(layout: ColumnLayout): string[] {
  const hidden = new Set(layout.hidden);
  return layout.order.filter((k) => !hidden.has(k));
}
