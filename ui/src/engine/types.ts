/**
 * The metadata the server serves (GET /api/meta/...) and the grid calls' bodies, as the engine
 * reads them. Field names follow the server's JSON exactly; see engine/meta.go and views.yaml.
 */

export type FieldTypeName = 'text' | 'int' | 'decimal' | 'date' | 'datetime' | 'bool' | 'enum';

export type FilterOp =
  | 'contains'
  | 'startsWith'
  | 'endsWith'
  | 'equals'
  | 'notEquals'
  | 'lt'
  | 'lte'
  | 'gt'
  | 'gte'
  | 'between'
  | 'in'
  | 'isEmpty'
  | 'isNotEmpty';

export type Severity = 'success' | 'info' | 'warning' | 'danger' | 'secondary';

export interface StatusBadge {
  label: string;
  severity: Severity;
  /** A status that needs nothing more though not a success (a rejected request): not open. */
  closed?: boolean;
}

export interface ColumnMeta {
  field: string;
  type: FieldTypeName;
  /** Translation key, views.<ViewName>.fields.<field> unless the descriptor names another. */
  label: string;
  hidden?: boolean;
  editable?: boolean;
  sortable: boolean;
  maxLength?: number;
  scale?: number;
  values?: string[];
  width?: number;
  /** Frozen at the grid's start unless the user set up the grid otherwise (views.yaml `pinned`). */
  pinned?: boolean;
  status?: { values: Record<string, StatusBadge>; otherwise?: StatusBadge };
  ops: FilterOp[];
}

export interface SortSpec {
  field: string;
  order: 'asc' | 'desc';
}

export interface ViewMeta {
  name: string;
  key: string;
  screen: number;
  export?: string;
  editable: boolean;
  editName?: string;
  version?: string;
  defaultSort: SortSpec;
  columns: ColumnMeta[];
  countCap: number;
  maxPageSize: number;
  /** A report's declared parameters: the screen supplies their values (GridRequest.Params). */
  params?: ViewParam[];
  /** Colours whole rows by one field's value (views.yaml `rowStatus`). */
  rowStatus?: RowStatusMeta;
  /** The expander row's grids: related records of a row (views.yaml `details`). */
  details?: DetailMeta[];
}

/** One grid of a row's expander: the rows of `view` whose `field` equals the row's key. */
export interface DetailMeta {
  view: string;
  field: string;
  /** Translation key. */
  title: string;
}

/** A declared parameter of a report view (engine/params.go Param). */
export interface ViewParam {
  name: string;
  type: FieldTypeName;
  list?: boolean;
  required?: boolean;
  notBefore?: string;
  maxLength?: number;
  pattern?: string;
  patternHint?: string;
  values?: string[];
  /** Translation key. */
  label?: string;
}

/** The row colour rule: the badge of `field`'s value, else `otherwise`. */
export interface RowStatusMeta {
  field: string;
  values: Record<string, StatusBadge>;
  otherwise?: StatusBadge;
}

export interface ActionMeta {
  id: string;
  label: string;
  icon: string;
  method: string;
  path: string;
  confirm?: string;
  success: string;
  failure: string;
  /** Acts on the rows chosen with the grid's check boxes; one: exactly one of them. */
  selection?: boolean;
  one?: boolean;
  /** The fields of each chosen row sent as items (the key when none). */
  send?: string[];
  /** Values asked for in a dialog before the call, sent by name. */
  inputs?: ActionInputMeta[];
  /** Opens this path (its {Field}s the chosen row's values) instead of calling the API. */
  link?: string;
  /**
   * Body keys filled from the one chosen row's fields, e.g. {level: 'Level'}; such an action
   * sends them instead of items (unless it names send fields). Its path, like any action's, may
   * hold {Name}s: the chosen row's field of that name, else the input of that name.
   */
  rowFields?: Record<string, string>;
}

export interface ActionInputMeta {
  name: string;
  label: string;
  /** month: a month in the user's date format, sent as yyyy-mm. */
  type: 'text' | 'textarea' | 'month' | 'select';
  required?: boolean;
  maxLength?: number;
  /** Translation key of the text the input starts with. */
  default?: string;
  /** select: an API path answering a list, and the fields of its elements sent and shown. */
  options?: string;
  optionValue?: string;
  optionLabel?: string;
  /** select: the option labels are translation keys. */
  translate?: boolean;
  /** select: translation key shown while nothing is chosen (an optional select then sends null). */
  placeholder?: string;
}

export interface TabMeta {
  id: string;
  title: string;
  view: string;
  add?: string;
  addText?: string;
  delete?: string;
  /** API path deleting a row ({id}: its key) where no form describes the resource. */
  deleteRoute?: string;
  height?: number;
  addRoute?: string;
  editRoute?: string;
  actions?: ActionMeta[];
}

export interface ScreenMeta {
  route: string;
  screen: number;
  title: string;
  tabs: TabMeta[];
  /** Show the tab strip even when the screen has one tab. */
  showTabs?: boolean;
}

/** JSON Schema as the server writes it for a form (engine/meta.go Form.Meta). */
export interface FormSchemaProperty {
  type?: 'string' | 'integer' | 'number' | 'boolean';
  title?: string;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  default?: unknown;
  format?: string;
  oneOf?: Array<{ const: string | number; title: string }>;
}

export interface FormSchema {
  type: 'object';
  required?: string[];
  properties: Record<string, FormSchemaProperty>;
}

export interface LookupOptions {
  lookup: string;
  valueField: string;
  labelField: string;
  store: 'value' | 'label';
}

export interface FieldUiSchema {
  'ui:widget'?: string;
  'ui:options'?: Partial<LookupOptions> & { transform?: Transform[]; scale?: number };
}

export type Transform = 'trim' | 'upper';

export type FormUiSchema = { 'ui:order'?: string[] } & Record<string, FieldUiSchema | string[] | undefined>;

export interface FormMeta {
  name: string;
  resource: string;
  key: string;
  title: string;
  width: number;
  success?: string;
  /** Save stays disabled until the form is valid. */
  saveWhenValid?: boolean;
  schema: FormSchema;
  uiSchema: FormUiSchema;
}

export type Row = Record<string, unknown>;

export interface FilterCondition {
  field: string;
  op: FilterOp;
  value?: unknown;
}

export interface GridRequest {
  ViewName: string;
  PageSize: number;
  /** A row offset, not a page index (spec 02 §7). */
  PageNumber: number;
  Filters: FilterCondition[];
  SortField: string;
  SortOrder: 'asc' | 'desc';
  /** The values of a report view's declared params, by name. */
  Params?: Record<string, unknown>;
}

export interface GridPage {
  dataList: Row[];
  totalCount: number;
  /** True: the total is at least totalCount (the server stopped counting). */
  totalCapped?: boolean;
}

export type ExportFormat = 'xlsx' | 'csv';
