import { useTranslation } from 'react-i18next';
import { Dropdown } from 'primereact/dropdown';
import { getAppConfig } from '../config/appConfig';

/** The name of a language code as the configuration lists it ("sv" -> "Svenska"). */
export function languageName(code: string): string {
  return getAppConfig().languages.find((language) => language.code === code)?.name ?? code;
}

/**
 * The date format and language dropdowns of the user form's and the profile's Configuration
 * section. The options come from the application configuration (spec 01 §9).
 */
export function ConfigurationFields({
  idPrefix,
  dateFormat,
  languageCode,
  onChange,
  errors = {},
}: {
  idPrefix: string;
  dateFormat: string;
  languageCode: string;
  onChange: (field: 'dateFormat' | 'languageCode', value: string) => void;
  errors?: { dateFormat?: string | null; languageCode?: string | null };
}) {
  const { t } = useTranslation();
  const config = getAppConfig();
  return (
    <div className="form-grid">
      <div className="field">
        <label htmlFor={`${idPrefix}-dateFormat`}>{t('userFields.dateFormat')}</label>
        <Dropdown
          inputId={`${idPrefix}-dateFormat`}
          value={dateFormat}
          options={config.dateFormats.map((format) => ({ label: format, value: format }))}
          onChange={(e) => onChange('dateFormat', String(e.value))}
          invalid={!!errors.dateFormat}
          data-testid={`${idPrefix}-dateFormat`}
        />
        {errors.dateFormat && <small className="field__error">{errors.dateFormat}</small>}
      </div>
      <div className="field">
        <label htmlFor={`${idPrefix}-languageCode`}>{t('userFields.language')}</label>
        <Dropdown
          inputId={`${idPrefix}-languageCode`}
          value={languageCode}
          options={config.languages.map((language) => ({ label: language.name, value: language.code }))}
          onChange={(e) => onChange('languageCode', String(e.value))}
          invalid={!!errors.languageCode}
          data-testid={`${idPrefix}-languageCode`}
        />
        {errors.languageCode && <small className="field__error">{errors.languageCode}</small>}
      </div>
    </div>
  );
}
