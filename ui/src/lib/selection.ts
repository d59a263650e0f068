/**
 * Select-all over a list of checkboxes (user roles, role screens). The select-all box follows
 * the individual boxes: checked when every item is, unchecked otherwise; ticking it selects
 * every item, unticking it clears them. Selections are id arrays kept in list order.
 */

export function allSelected(allIds: readonly number[], selected: readonly number[]): boolean {
  return allIds.length > 0 && allIds.every((id) => selected.includes(id));
}

export function someSelected(allIds: readonly number[], selected: readonly number[]): boolean {
  return allIds.some((id) => selected.includes(id));
}

export function toggleAll(allIds: readonly number[], checked: boolean): number[] {
  return checked ? [...allIds] : [];
}

export function toggleOne(allIds: readonly number[], selected: readonly number[], id: number, checked: boolean): number[] {
  const next = new Set(selected);
  if (checked) next.add(id);
  else next.delete(id);
  // Keep the order of the list, so equal selections compare equal and requests are stable.
  const ordered = allIds.filter((x) => next.has(x));
  const unknown = [...next].filter((x) => !allIds.includes(x));
  return [...ordered, ...unknown];
}

/** Same ids regardless of order: whether a selection changed since it was loaded. */
export function sameIds(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  const set = new Set(a);
  return b.every((id) => set.has(id));
}
