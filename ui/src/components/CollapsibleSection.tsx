import { useId, useState, type ReactNode } from 'react';

/**
 * A titled section that folds away. The collapsed header shows `summary` (the user form shows
 * the number of roles chosen, or the chosen format and language). The 200ms animation of spec
 * 01 §9 is a CSS grid-row transition, so it needs no measuring of the content.
 */
export function CollapsibleSection({
  title,
  summary,
  defaultOpen = true,
  testId,
  children,
}: {
  title: string;
  summary?: ReactNode;
  defaultOpen?: boolean;
  testId?: string;
  children: ReactNode;
}) {
  const [open, setOpen] = useState(defaultOpen);
  const contentId = useId();
  return (
    <section className={`collapsible${open ? ' is-open' : ''}`} data-testid={testId}>
      <button
        type="button"
        className="collapsible__header"
        aria-expanded={open}
        aria-controls={contentId}
        onClick={() => setOpen((value) => !value)}
        data-testid={testId ? `${testId}-toggle` : undefined}
      >
        <i className="pi pi-chevron-right collapsible__chevron" aria-hidden="true" />
        <span className="collapsible__title">{title}</span>
        {!open && summary !== undefined && (
          <span className="collapsible__summary" data-testid={testId ? `${testId}-summary` : undefined}>
            {summary}
          </span>
        )}
      </button>
      <div className="collapsible__body" id={contentId} aria-hidden={!open} inert={!open}>
        <div className="collapsible__inner">{children}</div>
      </div>
    </section>
  );
}
