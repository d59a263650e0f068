/**
 * Tasks (route dashboard/tasks, screen 14; spec 03 section 2.3): three tabs, Ticket vs
 * Transaction with the paged task table, and the two other levels, which show their heading only.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { TabView, TabPanel } from 'primereact/tabview';
import { ScreenHeader } from '../../components/ScreenHeader';
import { TaskTable } from './TaskTable';
import './tasks.css';

const TABS = ['ticketTransaction', 'transactionSettlement', 'settlementBank'] as const;

export default function TasksScreen() {
  const { t } = useTranslation();
  const [tab, setTab] = useState(0);
  return (
    <section className="screen tasks-screen" data-testid="screen-tasks">
      <ScreenHeader title={t('tasks.title')} />
      {/* scrollable: on a phone the tabs that do not fit are reached with arrows. */}
      <TabView activeIndex={tab} onTabChange={(e) => setTab(e.index)} scrollable>
        {TABS.map((key, i) => (
          <TabPanel key={key} header={t(`tasks.tabs.${key}`)} pt={{ headerAction: { 'data-testid': `tasks-tab-${key}` } as never }}>
            {i === 0 ? (
              <TaskTable />
            ) : (
              <h2 className="tasks-placeholder" data-testid={`tasks-heading-${key}`}>
                {t(`tasks.tabs.${key}`)}
              </h2>
            )}
          </TabPanel>
        ))}
      </TabView>
    </section>
  );
}
