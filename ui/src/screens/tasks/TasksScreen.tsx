/**
 * Tasks (route dashboard/tasks, screen 14; spec 03 section 2.3): three tabs, Ticket vs
 * Transaction with the task list, and the two other levels, which show their heading only.
 *
 * The list is the engine's grid of VW_Tasks: its columns, the expander with a task's tickets,
 * transactions and followed records, and the in-place edit of name and remarks are declared in
 * views.yaml. This screen adds the task editor: Create opens it at dashboard/tasks/new, a row's
 * pencil or a double-click at dashboard/tasks/edit/<id> (an address that can be shared).
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMatch, useNavigate } from 'react-router-dom';
import { TabView, TabPanel } from 'primereact/tabview';
import { ScreenHeader } from '../../components/ScreenHeader';
import { GridView } from '../../engine/GridView';
import { TaskEditorDialog } from './TaskEditorDialog';
import './tasks.css';

const TABS = ['ticketTransaction', 'transactionSettlement', 'settlementBank'] as const;
export const TASKS_VIEW = 'VW_Tasks';
const LIST = '/dashboard/tasks';

export default function TasksScreen() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [tab, setTab] = useState(0);
  // Saved in the editor: the list (and the details of its open rows) is read again.
  const [saves, setSaves] = useState(0);
  const creating = useMatch('/dashboard/tasks/new') !== null;
  const editing = Number(useMatch('/dashboard/tasks/edit/:id')?.params.id);
  const close = () => navigate(LIST);
  const saved = () => setSaves((n) => n + 1);
  return (
    <section className="screen tasks-screen" data-testid="screen-tasks">
      <ScreenHeader title={t('tasks.title')} />
      {/* scrollable: on a phone the tabs that do not fit are reached with arrows. */}
      <TabView activeIndex={tab} onTabChange={(e) => setTab(e.index)} scrollable>
        {TABS.map((key, i) => (
          <TabPanel key={key} header={t(`tasks.tabs.${key}`)} pt={{ headerAction: { 'data-testid': `tasks-tab-${key}` } as never }}>
            {i === 0 ? (
              <GridView
                viewName={TASKS_VIEW}
                title={t(`tasks.tabs.${key}`)}
                addRoute="dashboard/tasks/new"
                addText="tasks.toolbar.create"
                editRoute="dashboard/tasks/edit/{id}"
                reloadKey={saves}
              />
            ) : (
              <h2 className="tasks-placeholder" data-testid={`tasks-heading-${key}`}>
                {t(`tasks.tabs.${key}`)}
              </h2>
            )}
          </TabPanel>
        ))}
      </TabView>
      {Number.isInteger(editing) && editing > 0 && <TaskEditorDialog key={editing} mode="edit" taskId={editing} onClose={close} onSaved={saved} />}
      {creating && <TaskEditorDialog mode="create" onClose={close} onSaved={saved} />}
    </section>
  );
}
