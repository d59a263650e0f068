package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/doug-martin/goqu/v9"
	"github.com/jackc/pgx/v5"
)

// RowEdit is an inline edit of one grid row. The view is named by ViewName,
// or by the spec's TableName + KeyColumnName pair (resolved through the
// views' editName and key). Values holds only editable fields. Version is
// the row's version field as the client read it; a row changed since then
// is not overwritten (409).
type RowEdit struct {
	ViewName      string         `json:"ViewName"`
	TableName     string         `json:"TableName"`
	KeyColumnName string         `json:"KeyColumnName"`
	Key           any            `json:"Key"`
	Values        map[string]any `json:"Values"`
	Version       any            `json:"Version"`
}

// editView finds the view an edit addresses and checks the caller may open it.
func (e *Engine) editView(ctx context.Context, r RowEdit) (*View, error) {
	md := e.Metadata()
	if r.ViewName == "" {
		if r.TableName == "" {
			return nil, Invalid("ViewName", "ViewName (or TableName with KeyColumnName) is required.").With("edit.viewRequired")
		}
		for _, name := range sortedKeys(md.Views) {
			v := md.Views[name]
			if v.EditName != "" && strings.EqualFold(v.EditName, r.TableName) {
				if r.KeyColumnName != "" && !strings.EqualFold(r.KeyColumnName, v.Key) {
					return nil, Invalid("KeyColumnName", "KeyColumnName %q is not the key of %s (%s).", r.KeyColumnName, r.TableName, v.Key).With("edit.keyColumn", "keyColumn", r.KeyColumnName)
				}
				r.ViewName = name
				break
			}
		}
		if r.ViewName == "" {
			return nil, Invalid("TableName", "Unknown TableName %q.", r.TableName).With("edit.unknownTable", "table", r.TableName)
		}
	}
	v, err := e.View(ctx, r.ViewName)
	if err != nil {
		return nil, err
	}
	if v.Table == "" {
		return nil, Invalid("ViewName", "%s is read-only.", v.Name).With("edit.readOnly", "view", v.Name)
	}
	return v, nil
}

// UpdateRow saves an inline edit in one transaction, with an audit row of
// the fields before and after, and returns the row as the grid shows it.
func (e *Engine) UpdateRow(ctx context.Context, r RowEdit) (map[string]any, error) {
	v, err := e.editView(ctx, r)
	if err != nil {
		return nil, err
	}
	if len(r.Values) == 0 {
		return nil, Invalid("Values", "Values is empty: nothing to save.").With("edit.empty")
	}
	key := v.column(v.Key)
	if r.Key == nil {
		return nil, Invalid("Key", "Key is required.").With("edit.keyRequired")
	}
	keyVal, err := key.ParseValue(r.Key)
	if err != nil {
		return nil, Invalid("Key", "Key: %s", err.(*Error).Message)
	}
	set := goqu.Record{}
	var cols []*Column
	written := map[string]any{} // the values as saved: after their transforms
	for field, raw := range r.Values {
		c := v.column(field)
		if c == nil || !c.Editable {
			return nil, Invalid(field, "%s is not an editable field of %s.", field, v.Name).With("edit.notEditable", "field", field)
		}
		w := applyTransforms(raw, c.Transform)
		val, err := c.ParseValue(w)
		if err != nil {
			return nil, err
		}
		if err := checkRange(c.Field, c.Min, c.Max, w); err != nil {
			return nil, err
		}
		written[c.Field] = w
		set[c.Column] = val
		cols = append(cols, c)
	}
	var versionCol *Column
	var versionVal any
	if v.Version != "" {
		versionCol = v.column(v.Version)
		if r.Version == nil {
			return nil, Invalid("Version", "Version is required: send the %s value the row had when you read it.", v.Version).With("edit.versionRequired")
		}
		if versionVal, err = versionCol.ParseValue(r.Version); err != nil {
			return nil, Invalid("Version", "Version: %s", err.(*Error).Message)
		}
	}
	for col, val := range v.EditSets {
		set[col] = val
	}
	actor := ActorFrom(ctx)
	if v.stampUpdated {
		set["updated_on"] = e.now()
		set["updated_by"] = actor.Username
	}

	var row map[string]any
	err = pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
		if err := e.limitTx(ctx, tx); err != nil {
			return err
		}
		// Lock the row and read what the edit replaces.
		selectCols := []any{}
		for _, c := range cols {
			selectCols = append(selectCols, goqu.I(c.Column))
		}
		if versionCol != nil {
			selectCols = append(selectCols, goqu.I(versionCol.Column))
		}
		lockSQL, lockArgs, err := dialect.From(goqu.I(v.Table)).Prepared(true).Select(selectCols...).
			Where(goqu.I(key.Column).Eq(keyVal)).ForUpdate(goqu.Wait).ToSQL()
		if err != nil {
			return err
		}
		rows, err := tx.Query(ctx, lockSQL, lockArgs...)
		if err != nil {
			return err
		}
		vals, err := pgx.CollectExactlyOneRow(rows, func(r pgx.CollectableRow) ([]any, error) { return r.Values() })
		if errors.Is(err, pgx.ErrNoRows) {
			return NotFound("%s has no row with %s %v.", v.Name, v.Key, r.Key).With("edit.notFound")
		}
		if err != nil {
			return err
		}
		before, after := map[string]any{}, map[string]any{}
		for i, c := range cols {
			before[c.Field] = c.jsonValue(vals[i])
			after[c.Field] = written[c.Field]
		}
		if versionCol != nil && !sameVersion(versionCol, vals[len(cols)], versionVal) {
			return Conflict("This row was changed by someone else after you loaded it. Reload the grid and edit it again; nothing was saved.").With("edit.stale")
		}
		if err := e.gate(ctx, tx, v.Approval, v.Name, fmt.Sprint(r.Key), before, after,
			map[string]any{"op": "engine.edit", "edit": r}); err != nil {
			return err
		}
		updSQL, updArgs, err := dialect.Update(goqu.I(v.Table)).Prepared(true).Set(set).Where(goqu.I(key.Column).Eq(keyVal)).ToSQL()
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, updSQL, updArgs...); err != nil {
			return err
		}
		if v.AfterEdit != "" {
			columns := make([]string, len(cols))
			for i, c := range cols {
				columns[i] = c.Column
			}
			if _, err := tx.Exec(ctx, "select "+pgx.Identifier{v.AfterEdit}.Sanitize()+"($1, $2)", keyVal, columns); err != nil {
				return err
			}
		}
		if err := Audit(ctx, tx, AuditEntry{Action: "grid.edit", Entity: v.AuditEntity(), EntityID: fmt.Sprint(r.Key), Before: before, After: after}); err != nil {
			return err
		}
		q := &query{view: v, from: v.from(nil), where: goqu.I(key.Column).Eq(keyVal)}
		readSQL, readArgs, err := q.dataset().ToSQL()
		if err != nil {
			return err
		}
		rows, err = tx.Query(ctx, readSQL, readArgs...)
		if err != nil {
			return err
		}
		list, err := v.collect(rows)
		if err != nil {
			return err
		}
		if len(list) != 1 {
			return NotFound("%s has no row with %s %v after the edit.", v.Name, v.Key, r.Key).With("edit.notFound")
		}
		row = list[0]
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("edit %s: %w", v.Name, TranslatePG(err))
	}
	return row, nil
}

// sameVersion compares the stored version with the one the client sent.
func sameVersion(c *Column, stored, sent any) bool {
	return fmt.Sprint(c.jsonValue(stored)) == fmt.Sprint(c.jsonValue(sent))
}
