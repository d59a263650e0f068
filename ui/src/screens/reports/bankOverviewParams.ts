/**
 * The bank overview parameters of spec 03 §3.6 and §9: their options, the defaults, the badge
 * count (parameters that differ from the defaults) and their place in local storage
 * (bankOverviewParams), restored on opening with anything unknown falling back to its default
 * (the date grouping to Month).
 */
export const STORAGE_KEY = 'bankOverviewParams';

export const OPTIONS = {
  inOutFilter: ['In', 'Out'],
  distribRvnFilter: ['Yes', 'No', 'All'],
  distribDriverFilter: ['All', 'Yes', 'No'],
  affectsBalanceFilter: ['Yes', 'No', 'All'],
  dateGroupingType: ['Year', 'Half-Year', 'Quarter', 'Month', 'Week', 'Day'],
} as const;

export type ParamName = keyof typeof OPTIONS;
export type BankOverviewParams = { [K in ParamName]: (typeof OPTIONS)[K][number] };

export const PARAM_NAMES = Object.keys(OPTIONS) as ParamName[];

export const DEFAULT_PARAMS: BankOverviewParams = {
  inOutFilter: 'In',
  distribRvnFilter: 'Yes',
  distribDriverFilter: 'All',
  affectsBalanceFilter: 'Yes',
  dateGroupingType: 'Month',
};

/** How many parameters differ from the defaults: the number on the filter badge. */
export function countChanged(params: BankOverviewParams): number {
  return PARAM_NAMES.filter((name) => params[name] !== DEFAULT_PARAMS[name]).length;
}

function allowed<K extends ParamName>(name: K, value: unknown): value is BankOverviewParams[K] {
  return (OPTIONS[name] as readonly unknown[]).includes(value);
}

/** Any stored or linked object as parameters: each unknown or missing value is its default. */
export function normalizeParams(raw: unknown): BankOverviewParams {
  const source = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  const out = { ...DEFAULT_PARAMS };
  for (const name of PARAM_NAMES) {
    const value = source[name];
    if (allowed(name, value)) (out as Record<ParamName, string>)[name] = value;
  }
  return out;
}

export function loadParams(storage: Storage = localStorage): BankOverviewParams {
  try {
    const text = storage.getItem(STORAGE_KEY);
    return normalizeParams(text ? JSON.parse(text) : null);
  } catch {
    return { ...DEFAULT_PARAMS };
  }
}

export function saveParams(params: BankOverviewParams, storage: Storage = localStorage): void {
  try {
    storage.setItem(STORAGE_KEY, JSON.stringify(params));
  } catch {
    // storage full or blocked: the parameters are just not remembered
  }
}
