/**
 * Data Import (route dashboard/financialdocument, screen id 2): pick the kind of file and
 * optionally its layout, drop or choose files; each file is uploaded on its own, then its
 * import job is followed until it has succeeded or failed. Below, the recent imports.
 */
import { useCallback, useEffect, useMemo, useRef, useState, type DragEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { SelectButton } from 'primereact/selectbutton';
import { Dropdown } from 'primereact/dropdown';
import { Button } from 'primereact/button';
import { ProgressBar } from 'primereact/progressbar';
import { Tag } from 'primereact/tag';
import { ScreenHeader } from '../../components/ScreenHeader';
import { useToast } from '../../shell/toast';
import { useCurrentUser } from '../../auth/useSession';
import { getAppConfig } from '../../config/appConfig';
import { formatDate } from '../../lib/dates';
import { serverMessage } from '../../api/client';
import { IMPORT_KINDS, importsApi, isFinished, type ImportFile, type ImportKind, type ImportLayout, type ImportStatus, type RowNote } from '../../api/imports';
import { extractionLogLink, formatBytes, formatCount, ROW_ERROR_LIMIT, rowErrorText, rowNoteText, selectExtractionLogTab } from './importFormat';
import { isDone, useImportQueue, type UploadEntry, type UploadOutcome, type UploadPhase } from './useImportQueue';
import './data-import.css';

const DEFAULT_DATE_FORMAT = 'DD-MM-YYYY HH:mm:ss';
/** The layout choice "detect from the file" (PrimeReact shows an empty value as no choice). */
const DETECT = '*detect*';

type Severity = 'success' | 'danger' | 'info' | 'warning' | 'secondary';

const PHASE_SEVERITY: Record<UploadPhase, Severity> = {
  waiting: 'secondary',
  uploading: 'info',
  queued: 'info',
  running: 'info',
  succeeded: 'success',
  failed: 'danger',
  refused: 'danger',
  duplicate: 'warning',
};

export default function DataImportScreen({ pollMs = 1000 }: { pollMs?: number }) {
  const { t, i18n } = useTranslation();
  const toast = useToast();
  const locale = i18n.language || 'en';
  const [kind, setKind] = useState<ImportKind | null>(null);
  const [layout, setLayout] = useState(DETECT);
  const [layouts, setLayouts] = useState<ImportLayout[]>([]);
  const [recentVersion, setRecentVersion] = useState(0);

  useEffect(() => {
    let live = true;
    importsApi
      .layouts()
      .then((list) => live && setLayouts(list ?? []))
      .catch((err: Error) => live && toast.error(t('imports.layoutsFailed', { message: err.message })));
    return () => {
      live = false;
    };
  }, [toast, t]);

  const onOutcome = useCallback(
    ({ fileName, phase, error, result }: UploadOutcome) => {
      if (phase === 'succeeded') {
        toast.success(t('imports.toastSucceeded', { file: fileName, count: result?.rowsLoaded ?? 0 }));
      } else if (phase === 'duplicate') {
        toast.info(error ?? '', t('imports.phase.duplicate'));
      } else {
        // Server messages usually name the file already.
        const detail = !error ? fileName : error.includes(fileName) ? error : `${fileName}: ${error}`;
        toast.error(detail, t('imports.toastFailed'));
      }
      // An accepted upload changed the list of recent imports.
      if (phase === 'succeeded' || phase === 'failed') setRecentVersion((v) => v + 1);
    },
    [toast, t],
  );
  const queue = useImportQueue({ pollMs, onOutcome });

  const layoutOptions = useMemo(
    () => [
      { label: t('imports.detectLayout'), value: DETECT },
      ...layouts.filter((l) => l.kind === kind).map((l) => ({ label: `${l.name} (${l.format})`, value: l.name })),
    ],
    [layouts, kind, t],
  );
  const chosenLayout = layouts.find((l) => l.name === layout && l.kind === kind);

  const chooseKind = (next: ImportKind | null) => {
    setKind(next);
    if (!layouts.some((l) => l.name === layout && l.kind === next)) setLayout(DETECT);
  };

  const addFiles = (files: File[]) => {
    if (!kind || files.length === 0) return;
    queue.add(files, kind, layout === DETECT ? null : layout);
  };

  const limit = getAppConfig().uploadMaxBytes;
  const anyDone = queue.entries.some((e) => isDone(e.phase));

  return (
    <section className="screen data-import" data-testid="screen-data-import">
      <ScreenHeader title={t('screens.financialDocument.title')} />
      <div className="card data-import__card">
        <div className="data-import__options">
          <div className="field">
            <span className="data-import__label" id="import-kind-label">
              {t('imports.kindLabel')}
            </span>
            <SelectButton
              value={kind}
              onChange={(e) => chooseKind((e.value as ImportKind | null) ?? null)}
              options={IMPORT_KINDS.map((k) => ({ label: t(`imports.kinds.${k}`), value: k }))}
              itemTemplate={(option: { label: string; value: string }) => <span data-testid={`import-kind-${option.value}`}>{option.label}</span>}
              allowEmpty={false}
              aria-labelledby="import-kind-label"
              className="data-import__kinds"
            />
          </div>
          <div className="field data-import__layout">
            <label htmlFor="import-layout">{t('imports.layoutLabel')}</label>
            <Dropdown
              inputId="import-layout"
              value={layout}
              options={layoutOptions}
              onChange={(e) => setLayout(typeof e.value === 'string' && e.value !== '' ? e.value : DETECT)}
              disabled={!kind}
              data-testid="import-layout"
            />
            {chosenLayout?.description && <small className="field__hint">{chosenLayout.description}</small>}
          </div>
        </div>
        <DropZone disabled={!kind} onFiles={addFiles} limitText={limit ? t('imports.sizeLimit', { limit: formatBytes(limit, locale) }) : ''} />
        {queue.entries.length > 0 && (
          <div className="data-import__uploads">
            <div className="data-import__uploads-head">
              <h2 className="data-import__subtitle">{t('imports.uploads')}</h2>
              {anyDone && (
                <Button type="button" label={t('imports.clearFinished')} icon="pi pi-times" text size="small" onClick={queue.clearFinished} data-testid="import-clear" />
              )}
            </div>
            <ul className="import-list" data-testid="import-uploads">
              {queue.entries.map((entry) => (
                <UploadRow key={entry.key} entry={entry} locale={locale} />
              ))}
            </ul>
          </div>
        )}
      </div>
      <RecentImports version={recentVersion} pollMs={pollMs} locale={locale} />
    </section>
  );
}

function DropZone({ disabled, onFiles, limitText }: { disabled: boolean; onFiles: (files: File[]) => void; limitText: string }) {
  const { t } = useTranslation();
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);

  const onDrop = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault();
    setOver(false);
    if (disabled) return;
    onFiles(Array.from(event.dataTransfer.files));
  };

  return (
    <div
      className={`drop-zone${over && !disabled ? ' is-over' : ''}${disabled ? ' is-disabled' : ''}`}
      data-testid="import-drop-zone"
      onDragOver={(event) => {
        event.preventDefault();
        event.dataTransfer.dropEffect = disabled ? 'none' : 'copy';
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={onDrop}
    >
      <i className="pi pi-cloud-upload drop-zone__icon" aria-hidden="true" />
      {disabled ? (
        <p className="drop-zone__text">{t('imports.chooseKindFirst')}</p>
      ) : (
        <p className="drop-zone__text">{t('imports.dropHere')}</p>
      )}
      <Button type="button" label={t('imports.chooseFiles')} icon="pi pi-folder-open" disabled={disabled} onClick={() => input.current?.click()} data-testid="import-choose" />
      <p className="drop-zone__hint muted">
        {t('imports.formatsHint')}
        {limitText && ` · ${limitText}`}
      </p>
      <input
        ref={input}
        type="file"
        multiple
        hidden
        disabled={disabled}
        data-testid="import-file-input"
        aria-label={t('imports.chooseFiles')}
        onChange={(event) => {
          onFiles(Array.from(event.target.files ?? []));
          // The same file chosen again must fire a change (a retry after a fix).
          event.target.value = '';
        }}
      />
    </div>
  );
}

function UploadRow({ entry, locale }: { entry: UploadEntry; locale: string }) {
  const { t } = useTranslation();
  const result = entry.result;
  const finished = isDone(entry.phase);
  return (
    <li className={`import-row import-row--${entry.phase}`} data-testid="import-row" data-file={entry.fileName} data-status={entry.phase}>
      <i className={`pi ${phaseIcon(entry.phase)} import-row__icon`} aria-hidden="true" />
      <div className="import-row__main">
        <div className="import-row__title">
          <span className="import-row__name" title={entry.fileName}>
            {entry.fileName}
          </span>
          <span className="import-row__meta muted">
            {formatBytes(entry.size, locale)} · {t(`imports.kinds.${entry.kind}`)}
            {(result?.layout ?? entry.layout) && ` · ${result?.layout ?? entry.layout}`}
          </span>
        </div>
        <div className="import-row__state" data-testid="import-outcome">
          <PhaseText entry={entry} locale={locale} />
        </div>
        {!finished && <PhaseBar entry={entry} />}
        {entry.phase === 'failed' && result?.rowErrors && result.rowErrors.length > 0 && <RowErrorList errors={result.rowErrors} />}
        {entry.phase === 'succeeded' && result?.rowNotes && result.rowNotes.length > 0 && <RowNoteList notes={result.rowNotes} noteCount={result.noteCount} />}
      </div>
      <div className="import-row__side">
        <Tag value={t(`imports.phase.${entry.phase}`)} severity={PHASE_SEVERITY[entry.phase]} data-testid="import-status" />
        {result && (result.extractionLogId != null || isFinished(result.status)) && <ExtractionLogLink kind={entry.kind} logId={result.extractionLogId} />}
      </div>
    </li>
  );
}

function phaseIcon(phase: UploadPhase): string {
  switch (phase) {
    case 'succeeded':
      return 'pi-check-circle';
    case 'failed':
    case 'refused':
      return 'pi-times-circle';
    case 'duplicate':
      return 'pi-copy';
    default:
      return 'pi-file';
  }
}

function PhaseText({ entry, locale }: { entry: UploadEntry; locale: string }) {
  const { t } = useTranslation();
  const r = entry.result;
  switch (entry.phase) {
    case 'waiting':
      return <span className="muted">{t('imports.waitingText')}</span>;
    case 'uploading':
      return <span>{t('imports.uploadingText', { percent: Math.round(entry.progress * 100) })}</span>;
    case 'queued':
      return <span>{t('imports.queuedText')}</span>;
    case 'running':
      return <span>{t('imports.runningText', { read: formatCount(r?.rowsRead ?? 0, locale), loaded: formatCount(r?.rowsLoaded ?? 0, locale) })}</span>;
    case 'succeeded': {
      const overlap = r?.rowsOverlap ?? 0;
      return (
        <span className="import-row__ok">
          {t('imports.rowsLoaded', { count: r?.rowsLoaded ?? 0, formatted: formatCount(r?.rowsLoaded ?? 0, locale) })}
          {overlap > 0 && ` · ${t('imports.rowsOverlap', { count: overlap, formatted: formatCount(overlap, locale) })}`}
        </span>
      );
    }
    default:
      return <span className={entry.phase === 'duplicate' ? 'import-row__warn' : 'import-row__error'}>{entry.error ?? r?.error ?? t('errors.generic')}</span>;
  }
}

function PhaseBar({ entry }: { entry: UploadEntry }) {
  if (entry.phase === 'uploading') {
    return <ProgressBar value={Math.round(entry.progress * 100)} showValue={false} className="import-row__bar" />;
  }
  if (entry.phase === 'queued' || entry.phase === 'running') {
    return <ProgressBar mode="indeterminate" className="import-row__bar" />;
  }
  return null;
}

/**
 * A collapsible list of row messages under an import (its row errors or its notes): a toggle
 * with the count, the first ROW_ERROR_LIMIT items, and how many more there are.
 */
function RowMessageList({
  total,
  items,
  showText,
  hideText,
  moreText,
  testId,
  variant,
}: {
  /** How many messages there are in all; more than `items` when the server or the screen shortened the list. */
  total: number;
  items: ReactNode[];
  showText: string;
  hideText: string;
  moreText: (count: number) => string;
  testId: string;
  variant: 'errors' | 'notes';
}) {
  const [open, setOpen] = useState(false);
  const shown = items.slice(0, ROW_ERROR_LIMIT);
  const more = Math.max(total, items.length) - shown.length;
  return (
    <div className={`row-errors row-errors--${variant}`}>
      <button type="button" className="link-button row-errors__toggle" aria-expanded={open} onClick={() => setOpen((o) => !o)} data-testid={`${testId}-toggle`}>
        <i className={`pi ${open ? 'pi-chevron-down' : 'pi-chevron-right'}`} aria-hidden="true" /> {open ? hideText : showText}
      </button>
      {open && (
        <ol className="row-errors__list" data-testid={testId}>
          {shown.map((item, index) => (
            <li key={index}>{item}</li>
          ))}
          {more > 0 && <li className="muted">{moreText(more)}</li>}
        </ol>
      )}
    </div>
  );
}

function RowErrorList({ errors }: { errors: NonNullable<ImportFile['rowErrors']> }) {
  const { t } = useTranslation();
  return (
    <RowMessageList
      total={errors.length}
      items={errors.map((error) => rowErrorText(error, t))}
      showText={t('imports.showRowErrors', { count: errors.length })}
      hideText={t('imports.hideRowErrors')}
      moreText={(count) => t('imports.moreRowErrors', { count })}
      testId="import-row-errors"
      variant="errors"
    />
  );
}

/** The notes of a succeeded import: rows not stored (tagged "not loaded"), values read otherwise, statement warnings. */
function RowNoteList({ notes, noteCount }: { notes: RowNote[]; noteCount?: number | null }) {
  const { t } = useTranslation();
  const total = Math.max(noteCount ?? 0, notes.length);
  return (
    <RowMessageList
      total={total}
      items={notes.map((note) => (
        <>
          {rowNoteText(note, t)}
          {note.skipped && (
            <>
              {' '}
              <span className="row-notes__tag" data-testid="import-row-note-skipped">
                {t('imports.notLoaded')}
              </span>
            </>
          )}
        </>
      ))}
      showText={t('imports.showRowNotes', { count: total })}
      hideText={t('imports.hideRowNotes')}
      moreText={(count) => t('imports.moreRowNotes', { count })}
      testId="import-row-notes"
      variant="notes"
    />
  );
}

function ExtractionLogLink({ kind, logId, compact = false }: { kind: ImportKind; logId?: number | null; compact?: boolean }) {
  const { t } = useTranslation();
  const label = t('imports.extractionLog');
  return (
    <Link
      to={extractionLogLink(kind, logId)}
      onClick={() => selectExtractionLogTab(kind)}
      className="import-log-link"
      title={label}
      aria-label={compact ? label : undefined}
      data-testid="import-log-link"
    >
      <i className="pi pi-list" aria-hidden="true" />
      {!compact && ` ${label}`}
    </Link>
  );
}

const STATUS_SEVERITY: Record<ImportStatus, Severity> = { queued: 'info', running: 'info', succeeded: 'success', failed: 'danger' };

function RecentImports({ version, pollMs, locale }: { version: number; pollMs: number; locale: string }) {
  const { t } = useTranslation();
  const user = useCurrentUser();
  const [rows, setRows] = useState<ImportFile[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [tick, setTick] = useState(0);

  useEffect(() => {
    let live = true;
    setLoading(true);
    importsApi
      .recent()
      .then((list) => {
        if (!live) return;
        setRows(list ?? []);
        setError(null);
      })
      .catch((err: Error) => live && setError(err.message))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [version, tick]);

  // Imports still running (from this visit or an earlier one) are followed until they end.
  const pending = rows?.some((row) => !isFinished(row.status)) ?? false;
  useEffect(() => {
    if (!pending) return;
    const timer = setTimeout(() => setTick((n) => n + 1), pollMs * 3);
    return () => clearTimeout(timer);
  }, [pending, rows, pollMs]);

  const dateFormat = user?.dateFormat || DEFAULT_DATE_FORMAT;
  const when = (iso?: string | null) => {
    if (!iso) return '';
    const date = new Date(iso);
    return Number.isNaN(date.getTime()) ? iso : formatDate(date, dateFormat);
  };

  return (
    <div className="card data-import__card data-import__recent" data-testid="recent-imports">
      <div className="data-import__uploads-head">
        <h2 className="data-import__subtitle">{t('imports.recent.title')}</h2>
        <Button
          type="button"
          icon="pi pi-refresh"
          rounded
          text
          size="small"
          aria-label={t('imports.recent.refresh')}
          title={t('imports.recent.refresh')}
          onClick={() => setTick((n) => n + 1)}
          data-testid="recent-refresh"
        />
      </div>
      <div className="recent-progress-slot">{loading && <ProgressBar mode="indeterminate" className="grid-progress" />}</div>
      {error && <p className="import-row__error" data-testid="recent-error">{t('imports.recent.loadFailed', { message: error })}</p>}
      {rows && rows.length === 0 && !error && <p className="muted recent-empty">{t('imports.recent.empty')}</p>}
      {rows && rows.length > 0 && (
        <div className="imports-table-wrap">
          <table className="imports-table">
            <thead>
              <tr>
                <th>{t('imports.recent.time')}</th>
                <th>{t('imports.recent.kind')}</th>
                <th>{t('imports.recent.file')}</th>
                <th>{t('imports.recent.status')}</th>
                <th className="num">{t('imports.recent.rowsRead')}</th>
                <th className="num">{t('imports.recent.rowsLoaded')}</th>
                <th>{t('imports.recent.by')}</th>
                <th>
                  <span className="sr-only">{t('imports.extractionLog')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.importId} data-testid="recent-row" data-status={row.status}>
                  <td className="nowrap">{when(row.createdOn)}</td>
                  <td>{t(`imports.kinds.${row.kind}`, { defaultValue: row.kind })}</td>
                  <td className="imports-table__file" title={row.fileName}>
                    {row.fileName}
                  </td>
                  <td>
                    <Tag value={t(`imports.phase.${row.status}`, { defaultValue: row.status })} severity={STATUS_SEVERITY[row.status] ?? 'secondary'} title={row.error ? serverMessage({ code: row.errorCode, params: row.errorParams, text: row.error }) : undefined} />
                  </td>
                  <td className="num">{formatCount(row.rowsRead, locale)}</td>
                  <td className="num">{formatCount(row.rowsLoaded, locale)}</td>
                  <td>{row.createdBy}</td>
                  <td>{isFinished(row.status) && <ExtractionLogLink kind={row.kind} logId={row.extractionLogId} compact />}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
