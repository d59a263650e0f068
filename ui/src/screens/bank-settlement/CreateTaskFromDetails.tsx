/**
 * Create Task from the details dialog (spec 03 sections 2.1 and 4): the tasks screen's shared
 * TaskEditorDialog in create mode, pre-filled with "Reconciliation Review (nT / nX)" in the reader's
 * language (tasks.autoName), status New,
 * a remark noting the auto-linking, and the tickets and transactions the details show (their ids
 * sent, their references shown on the editor's chips).
 * The editor loads the users, creates the task (POST /TaskTT/with-items), shows the success view
 * and keeps the form with the server's message on a failure.
 */
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { TaskEditorDialog, type TaskEditorInitial } from '../tasks/TaskEditorDialog';
import { autoTaskName } from '../tasks/taskLogic';
import type { TaskTicket, TaskTransaction } from '../tasks/api';

export interface TaskLinks {
  ticketIds: number[];
  transactionIds: number[];
  /** The documents themselves, so the editor shows them by reference. */
  tickets?: TaskTicket[];
  transactions?: TaskTransaction[];
  /** What the details showed, for the remarks (e.g. "USD · 03-11-2026 · CC · US"). */
  context: string;
}

export function CreateTaskFromDetails({ links, onClose }: { links: TaskLinks | null; onClose(): void }) {
  const { t } = useTranslation();
  const initial = useMemo<TaskEditorInitial | undefined>(
    () =>
      links
        ? {
            taskName: autoTaskName(t, links.ticketIds.length, links.transactionIds.length),
            isStatus: 1,
            remarks: t('recon.task.remarks', { tickets: links.ticketIds.length, transactions: links.transactionIds.length, context: links.context }),
            ticketIds: links.ticketIds,
            transactionIds: links.transactionIds,
            tickets: links.tickets,
            transactions: links.transactions,
          }
        : undefined,
    [links, t],
  );
  if (!links) return null;
  return <TaskEditorDialog mode="create" initial={initial} onClose={onClose} />;
}
