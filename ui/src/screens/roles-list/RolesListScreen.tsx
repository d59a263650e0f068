import { BeingBuiltCard } from '../../components/BeingBuiltCard';
import { RolesListHeader } from './RolesListHeader';

/** The role list: its header now; the grid area comes with the metadata grid engine. */
export default function RolesListScreen() {
  return (
    <section className="screen" data-testid="roles-list-screen">
      <RolesListHeader />
      <BeingBuiltCard />
    </section>
  );
}
