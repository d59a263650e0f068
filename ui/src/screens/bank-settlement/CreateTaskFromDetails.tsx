/**
 * Create Task from the details dialog (spec 03 sections 2.1, 4, 5 and 8): the form (task name,
 * assignee, status, remarks) pre-filled with "Reconciliation Review (nT / nX)", a remark about
 * the auto-linking and the records' ids, then a success view. One component, so the tasks
 * screen's shared editor can take its place later. POST /api/TaskTT/with-items; the assignee
 * list from GET /api/Users/list (a failure offers a retry).
 */
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Dialog } from 'primereact/dialog';
import { Button } from 'primereact/button';
import { InputText } from 'primereact/inputtext';
import { InputTextarea } from 'primereact/inputtextarea';
import { Dropdown } from 'primereact/dropdown';
import { Message } from 'primereact/message';
import { api } from '../../api/client';
import { useToast } from '../../shell/toast';
import type { Row } from '../../engine/types';
import { errorText } from './recon';

export interface TaskLinks {
  ticketIds: number[];
  transactionIds: number[];
  /** What the details showed, for the remarks (e.g. "USD 2026-11-03 CC US"). */
  context: string;
}

interface UserOption {
  value: number;
  label: string;
}

/** The user list's entries carry id, userId or UserId and a name in one of several fields (spec 3.5). */
export function userOptions(list: unknown): UserOption[] {
  if (!Array.isArray(list)) return [];
  const out: UserOption[] = [];
  for (const entry of list as Row[]) {
    const id = Number(entry.id ?? entry.userId ?? entry.UserId);
    if (!Number.isFinite(id) || id <= 0) continue;
    const full = [entry.firstName, entry.lastName].filter((v) => typeof v === 'string' && v).join(' ');
    const label = String(entry.userName || entry.username || entry.UserName || full || 'User');
    out.push({ value: id, label });
  }
  return out;
}

export function defaultTaskName(links: TaskLinks): string {
  return `Reconciliation Review (${links.ticketIds.length}T / ${links.transactionIds.length}X)`;
}

export const TASK_STATUSES = [1, 2, 3] as const;

export function CreateTaskFromDetails({ links, onClose }: { links: TaskLinks | null; onClose(): void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const [name, setName] = useState('');
  const [assignee, setAssignee] = useState<number | null>(null);
  const [status, setStatus] = useState<number>(1);
  const [remarks, setRemarks] = useState('');
  const [users, setUsers] = useState<UserOption[]>([]);
  const [usersFailed, setUsersFailed] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [createdId, setCreatedId] = useState<number | null | undefined>(undefined);

  const loadUsers = useCallback(() => {
    setUsersFailed(false);
    api.get<unknown>('/Users/list').then(
      (list) => setUsers(userOptions(list)),
      () => {
        setUsersFailed(true);
        toast.error(t('recon.task.usersFailed'));
      },
    );
  }, [t, toast]);

  useEffect(() => {
    if (!links) return;
    setName(defaultTaskName(links));
    setRemarks(t('recon.task.remarks', { tickets: links.ticketIds.length, transactions: links.transactionIds.length, context: links.context }));
    setAssignee(null);
    setStatus(1);
    setFailure(null);
    setCreatedId(undefined);
    loadUsers();
  }, [links, loadUsers, t]);

  const submit = async () => {
    if (!links || name.trim() === '') return; // spec 5: a task needs a name; nothing happens without one
    setBusy(true);
    setFailure(null);
    try {
      const task = await api.post<Row | null>('/TaskTT/with-items', {
        taskName: name.trim() || 'New Task',
        assignedToId: assignee,
        isStatus: status || 1,
        remarks,
        ticketIds: links.ticketIds,
        transactionIds: links.transactionIds,
      });
      const id = Number(task?.id ?? task?.Id);
      if (Number.isFinite(id) && id > 0) {
        setCreatedId(id);
        toast.success(t('recon.task.created'));
      } else {
        setCreatedId(null);
        toast.warn(t('recon.task.savedWithoutId'), t('toast.warning'));
      }
    } catch (err) {
      const text = errorText(err, t, 'recon.task.createFailed');
      setFailure(text);
      toast.error(text, t('recon.task.createFailed'));
    } finally {
      setBusy(false);
    }
  };

  const done = createdId !== undefined;
  return (
    <Dialog
      visible={links !== null}
      onHide={onClose}
      header={t('recon.task.title')}
      modal
      maximizable
      style={{ width: 'min(560px, 94vw)' }}
      data-testid="task-dialog"
      footer={
        done ? (
          <Button type="button" label={t('common.close')} onClick={onClose} data-testid="task-close" />
        ) : (
          <div className="recon-dialog__footer">
            <Button type="button" icon="pi pi-check" label={t('recon.task.create')} loading={busy} disabled={name.trim() === ''} onClick={() => void submit()} data-testid="task-create" />
            <Button type="button" text label={t('common.cancel')} onClick={onClose} data-testid="task-cancel" />
          </div>
        )
      }
    >
      {done ? (
        <div className="recon-task__success" data-testid="task-success">
          <i className="pi pi-check-circle" aria-hidden="true" />
          <p>{createdId ? t('recon.task.createTaskSuccess', { id: createdId }) : t('recon.task.savedWithoutId')}</p>
        </div>
      ) : (
        <div className="recon-task__form">
          {failure && <Message severity="error" text={failure} className="recon-dialog__message" data-testid="task-failure" />}
          <label htmlFor="task-name" className="recon-field__label">
            {t('recon.task.name')} <span className="recon-required">*</span>
          </label>
          <InputText id="task-name" value={name} maxLength={200} onChange={(e) => setName(e.target.value)} className={name.trim() === '' ? 'p-invalid' : ''} data-testid="task-name" />
          <label htmlFor="task-assignee" className="recon-field__label">{t('recon.task.assignee')}</label>
          <Dropdown inputId="task-assignee" value={assignee} options={users} onChange={(e) => setAssignee(e.value as number | null)} placeholder={t('recon.task.assigneePlaceholder')} showClear filter data-testid="task-assignee" />
          {usersFailed && (
            <small className="recon-field__error">
              {t('recon.task.usersFailed')}{' '}
              <button type="button" className="link-button" onClick={loadUsers} data-testid="task-users-retry">
                {t('recon.task.retry')}
              </button>
            </small>
          )}
          <label htmlFor="task-status" className="recon-field__label">{t('recon.task.status')}</label>
          <Dropdown inputId="task-status" value={status} options={TASK_STATUSES.map((s) => ({ value: s, label: t(`recon.task.statuses.${s}`) }))} onChange={(e) => setStatus(e.value as number)} data-testid="task-status" />
          <label htmlFor="task-remarks" className="recon-field__label">{t('recon.task.remarksLabel')}</label>
          <InputTextarea id="task-remarks" value={remarks} rows={3} autoResize onChange={(e) => setRemarks(e.target.value)} data-testid="task-remarks" />
          <p className="muted recon-task__links" data-testid="task-links">
            {t('recon.task.links', { tickets: links?.ticketIds.length ?? 0, transactions: links?.transactionIds.length ?? 0 })}
          </p>
        </div>
      )}
    </Dialog>
  );
}
