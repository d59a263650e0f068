/**
 * Add/edit role (spec 01 §2 "Add/edit role screen", §4 "Role form", §5, §8). The screen
 * mapping is a separate call after the role is saved, made only when the selection changed
 * (and, for Save and New, only with at least one screen chosen). The built-in Administrator
 * role always grants every screen: its boxes show all checked and locked, and are never sent.
 * The optional write-off limit (USD) is the most a holder of the role may write off at once in
 * the manual reconcile dialog; empty, the role gives no write-offs.
 */
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { useFormik } from 'formik';
import { InputText } from 'primereact/inputtext';
import { InputTextarea } from 'primereact/inputtextarea';
import { ApiError } from '../../api/client';
import { rolesApi, type Role, type WebScreen } from '../../api/identity';
import { useToast } from '../../shell/toast';
import { CheckboxList } from '../../components/CheckboxList';
import { FormActions } from '../../components/FormActions';
import { ScreenHeader } from '../../components/ScreenHeader';
import { sameIds } from '../../lib/selection';
import { isStaleEdit } from '../../lib/staleEdit';
import {
  DESCRIPTION_MAX_LENGTH,
  emptyRoleValues,
  ROLE_NAME_MAX_LENGTH,
  roleValues,
  toRoleInput,
  validateRole,
  WRITEOFF_LIMIT_MAX_LENGTH,
  type RoleFormValues,
} from './roleForm';

const LIST_ROUTE = '/dashboard/roleslist';
const ADD_ROUTE = '/dashboard/roles/add';

type SaveAction = 'save' | 'saveAndNew';
type RoleField = keyof RoleFormValues;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The route entry: a fresh form per id. */
export default function RoleFormScreen() {
  const { id } = useParams();
  return <RoleForm key={id ?? 'new'} editId={id === undefined ? null : Number(id)} />;
}

function RoleForm({ editId }: { editId: number | null }) {
  const mode = editId === null ? 'add' : 'edit';
  const { t } = useTranslation();
  const toast = useToast();
  const navigate = useNavigate();

  const [screens, setScreens] = useState<WebScreen[]>([]);
  const [screensLoading, setScreensLoading] = useState(true);
  const [selected, setSelected] = useState<number[]>([]);
  const [initialSelected, setInitialSelected] = useState<number[]>([]);
  const [isAdminRole, setIsAdminRole] = useState(false);
  const [loading, setLoading] = useState(mode === 'edit');
  const [busy, setBusy] = useState(false);
  const [serverErrors, setServerErrors] = useState<Partial<Record<RoleField, string>>>({});
  /** The version of the role as read: a save sends it, so a newer save by someone else is not overwritten. */
  const [version, setVersion] = useState<string | undefined>(undefined);

  const formik = useFormik<RoleFormValues>({ initialValues: emptyRoleValues(), onSubmit: () => {} });
  const { values, touched } = formik;
  const errors = validateRole(values);
  const valid = Object.keys(errors).length === 0;
  const screensChanged = !isAdminRole && !sameIds(selected, initialSelected);
  const canSave = valid && !loading && (mode === 'add' || formik.dirty || screensChanged);
  const allScreenIds = screens.map((screen) => screen.id);

  const loadScreens = useCallback(async () => {
    setScreensLoading(true);
    try {
      setScreens(await rolesApi.webScreens());
    } catch (error) {
      toast.error(t('roles.messages.screensLoadFailed', { message: messageOf(error) }));
    } finally {
      setScreensLoading(false);
    }
  }, [toast, t]);

  useEffect(() => {
    void loadScreens();
    if (editId === null) return;
    let cancelled = false;
    (async () => {
      try {
        const [role, granted] = await Promise.all([rolesApi.get(editId), rolesApi.screens(editId)]);
        if (cancelled) return;
        formik.resetForm({ values: roleValues(role) });
        setVersion(role.version);
        setIsAdminRole(!!role.isAdmin);
        const ids = granted.map((screen) => screen.screenId);
        setSelected(ids);
        setInitialSelected(ids);
      } catch (error) {
        if (!cancelled) toast.error(t('roles.messages.loadFailed', { message: messageOf(error) }));
      } finally {
        if (!cancelled) setLoading(false);
      }
    })();
    return () => {
      cancelled = true;
    };
    // Deliberately once per form instance.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- loads the record once, not on every formik change
  }, []);

  function setValue(field: RoleField, value: string) {
    void formik.setFieldValue(field, value, false);
    if (serverErrors[field]) setServerErrors(({ [field]: _, ...rest }) => rest);
  }

  function errorOf(field: RoleField): string | null {
    if (serverErrors[field]) return serverErrors[field];
    const key = errors[field];
    return key && (touched[field] || formik.submitCount > 0) ? t(key, { max: field === 'roleName' ? ROLE_NAME_MAX_LENGTH : DESCRIPTION_MAX_LENGTH }) : null;
  }

  function markField(error: unknown) {
    if (error instanceof ApiError && (error.field === 'roleName' || error.field === 'description' || error.field === 'writeOffLimit')) {
      const field = error.field;
      setServerErrors((prev) => ({ ...prev, [field]: error.message }));
    }
  }

  async function saveScreens(roleId: number, action: SaveAction): Promise<boolean> {
    if (isAdminRole || !screensChanged) return true;
    if (action === 'saveAndNew' && selected.length === 0) return true;
    try {
      await rolesApi.setScreens(roleId, selected);
      return true;
    } catch (error) {
      toast.error(t('roles.messages.screensUpdateFailed', { message: messageOf(error) }));
      return false;
    }
  }

  async function save(action: SaveAction) {
    if (!canSave || busy) return;
    setBusy(true);
    try {
      const input = toRoleInput(values);
      if (mode === 'add') {
        let created: Role;
        try {
          created = await rolesApi.create(input);
        } catch (error) {
          markField(error);
          toast.error(t('roles.messages.createFailed', { message: messageOf(error) }));
          return;
        }
        const id = Number(created?.id);
        if (!Number.isInteger(id) || id <= 0) {
          toast.error(t('roles.messages.invalidId'));
          return;
        }
        toast.success(t('roles.messages.created'));
        if (!(await saveScreens(id, action))) {
          navigate(`/dashboard/roles/edit/${id}`, { replace: true });
          return;
        }
        if (action === 'saveAndNew') {
          formik.resetForm({ values: emptyRoleValues() });
          setServerErrors({});
          setSelected([]);
          setInitialSelected([]);
        } else navigate(LIST_ROUTE);
        return;
      }

      const id = editId as number;
      let updated: Role;
      try {
        updated = await rolesApi.update(id, { ...input, version });
      } catch (error) {
        markField(error);
        toast.error(isStaleEdit(error) ? t('security.changedByOthers') : t('roles.messages.updateFailed', { message: messageOf(error) }));
        return;
      }
      setVersion(updated.version);
      toast.success(t('roles.messages.updated'));
      if (!(await saveScreens(id, action))) {
        formik.resetForm({ values: roleValues(updated) });
        return;
      }
      navigate(action === 'saveAndNew' ? ADD_ROUTE : LIST_ROUTE);
    } finally {
      setBusy(false);
    }
  }

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    void save('save');
  }

  const nameError = errorOf('roleName');
  const descriptionError = errorOf('description');
  const limitError = errorOf('writeOffLimit');
  const title = t(mode === 'add' ? 'screens.roleAdd.title' : 'screens.roleEdit.title');

  return (
    <section className="screen" data-testid="role-form-screen">
      <ScreenHeader title={title} back={{ to: LIST_ROUTE, label: t('common.backToList') }} />
      <form className="card entity-form" onSubmit={onSubmit} noValidate data-testid="role-form" aria-busy={loading || busy}>
        <div className="form-grid">
          <div className="field">
            <label htmlFor="role-roleName">
              {t('roles.form.roleName')}
              <span className="required" aria-hidden="true"> *</span>
            </label>
            <InputText
              id="role-roleName"
              value={values.roleName}
              maxLength={ROLE_NAME_MAX_LENGTH}
              required
              invalid={!!nameError}
              aria-describedby={nameError ? 'role-roleName-error' : undefined}
              onChange={(e) => setValue('roleName', e.target.value)}
              onBlur={() => void formik.setFieldTouched('roleName', true, false)}
            />
            {nameError && (
              <small id="role-roleName-error" className="field__error" data-testid="error-roleName">
                {nameError}
              </small>
            )}
          </div>
          <div className="field field--span">
            <label htmlFor="role-description">{t('roles.form.description')}</label>
            <InputTextarea
              id="role-description"
              value={values.description}
              maxLength={DESCRIPTION_MAX_LENGTH}
              rows={3}
              autoResize
              invalid={!!descriptionError}
              onChange={(e) => setValue('description', e.target.value)}
              onBlur={() => void formik.setFieldTouched('description', true, false)}
            />
            <small className="field__hint">
              {values.description.length}/{DESCRIPTION_MAX_LENGTH}
            </small>
            {descriptionError && (
              <small className="field__error" data-testid="error-description">
                {descriptionError}
              </small>
            )}
          </div>
          <div className="field">
            <label htmlFor="role-writeOffLimit">{t('roles.form.writeOffLimit')}</label>
            <InputText
              id="role-writeOffLimit"
              value={values.writeOffLimit}
              inputMode="decimal"
              autoComplete="off"
              maxLength={WRITEOFF_LIMIT_MAX_LENGTH}
              placeholder={t('roles.form.writeOffLimitPlaceholder')}
              invalid={!!limitError}
              aria-describedby={limitError ? 'role-writeOffLimit-hint role-writeOffLimit-error' : 'role-writeOffLimit-hint'}
              onChange={(e) => setValue('writeOffLimit', e.target.value)}
              onBlur={() => void formik.setFieldTouched('writeOffLimit', true, false)}
              data-testid="role-writeoff-limit"
            />
            <small id="role-writeOffLimit-hint" className="field__hint">
              {t('roles.form.writeOffLimitHint')}
            </small>
            {limitError && (
              <small id="role-writeOffLimit-error" className="field__error" data-testid="error-writeOffLimit">
                {limitError}
              </small>
            )}
          </div>
        </div>

        <h2 className="form-section-title">{t('roles.form.screenPermissions')}</h2>
        {isAdminRole && (
          <p className="muted" data-testid="admin-role-note">
            <i className="pi pi-lock" aria-hidden="true" /> {t('roles.form.adminNote')}
          </p>
        )}
        {screensLoading ? (
          <p className="muted" data-testid="screens-loading">
            {t('roles.form.loadingScreens')}
          </p>
        ) : (
          <CheckboxList
            name="screen"
            items={screens.map((screen) => ({ id: screen.id, label: t(`serverMessages.webScreen.${screen.id}`, { defaultValue: screen.screenName }) }))}
            selected={isAdminRole ? allScreenIds : selected}
            onChange={setSelected}
            disabled={isAdminRole}
            emptyText={t('roles.form.noScreens')}
          />
        )}

        <FormActions canSave={canSave} busy={busy} onCancel={() => navigate(LIST_ROUTE)} onSaveAndNew={() => void save('saveAndNew')} />
      </form>
    </section>
  );
}
