import { useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';
import { ScreenHeader } from '../../components/ScreenHeader';

/**
 * Title and the Add Role button of the role list (spec 01 §2 "Role list screen"). Exported on
 * its own so the metadata grid engine can put it above the roles grid.
 */
export function RolesListHeader() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return (
    <ScreenHeader
      title={t('screens.rolesList.title')}
      actions={<Button label={t('roles.list.addRole')} icon="pi pi-plus" onClick={() => navigate('/dashboard/roles/add')} data-testid="add-role" />}
    />
  );
}
