import { BeingBuiltCard } from '../../components/BeingBuiltCard';
import { UsersListHeader } from './UsersListHeader';

/** The user list: its header now; the grid area comes with the metadata grid engine. */
export default function UsersListScreen() {
  return (
    <section className="screen" data-testid="users-list-screen">
      <UsersListHeader />
      <BeingBuiltCard />
    </section>
  );
}
