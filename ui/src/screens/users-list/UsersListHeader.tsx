import { useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';
import { ScreenHeader } from '../../components/ScreenHeader';

/**
 * Title "users list" and the Add User button (spec 01 §2 "User list screen"). Exported on its
 * own so the metadata grid engine can put it above the users grid.
 */
export function UsersListHeader() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return (
    <ScreenHeader
      title={t('screens.usersList.title')}
      actions={<Button label={t('users.list.addUser')} icon="pi pi-user-plus" onClick={() => navigate('/dashboard/users/add')} data-testid="add-user" />}
    />
  );
}
