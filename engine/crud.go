package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/doug-martin/goqu/v9"
	"github.com/jackc/pgx/v5"
)

// maxListRows bounds a resource's GET list: resources are reference data; a
// larger table belongs in a grid.
const maxListRows = 10_000

// FormByResource returns the form serving /api/{resource} (case-insensitive),
// if the caller may use it.
func (e *Engine) FormByResource(ctx context.Context, resource string) (*Form, error) {
	for _, f := range e.Metadata().Forms {
		if strings.EqualFold(f.Resource, resource) {
			if !ActorFrom(ctx).Can(f.Screen) {
				return nil, Forbidden("You do not have permission for %s.", f.Resource).With("form.forbidden")
			}
			return f, nil
		}
	}
	return nil, NotFound("No such resource: %s.", resource).With("form.unknown", "name", resource)
}

// FormByName returns a form by its file name, if the caller may use it.
func (e *Engine) FormByName(ctx context.Context, name string) (*Form, error) {
	f := e.Metadata().Forms[name]
	if f == nil {
		return nil, NotFound("No such form: %s.", name).With("form.unknown", "name", name)
	}
	if !ActorFrom(ctx).Can(f.Screen) {
		return nil, Forbidden("You do not have permission for %s.", f.Name).With("form.forbidden")
	}
	return f, nil
}

func (f *Form) keyColumn() *Column {
	return &Column{Field: f.Key.Field, Column: f.Key.Column, Type: "int"}
}

func (f *Form) selectCols() []any {
	cols := []any{goqu.I(f.Key.Column).As(f.Key.Field)}
	for _, ff := range f.Fields {
		cols = append(cols, goqu.I(ff.Column).As(ff.Field))
	}
	if f.stampUpdated {
		cols = append(cols, goqu.I(versionColumn.Column).As(versionColumn.Field))
	}
	return cols
}

// versionColumn is the version of a record whose table stamps updates: a
// PUT sends the one it read, and a record changed since is not overwritten.
var versionColumn = &Column{Field: "version", Column: "updated_on", Type: "datetime"}

// record turns a scanned row (key first, then the fields, then the
// version) into JSON values.
func (f *Form) record(vals []any) map[string]any {
	rec := map[string]any{f.Key.Field: vals[0]}
	for i, ff := range f.Fields {
		rec[ff.Field] = ff.col().jsonValue(vals[i+1])
	}
	if f.stampUpdated {
		rec[versionColumn.Field] = versionColumn.jsonValue(vals[len(f.Fields)+1])
	}
	return rec
}

// CheckVersion compares the version a client read (sent) with the stored
// one: a missing version is a 400, a different one a 409 (someone else
// saved since). Forms, users and roles share it with inline edits' rule.
func CheckVersion(stored, sent any) error {
	if sent == nil || sent == "" {
		return Invalid("version", "version is required: send the version the record had when you read it.").With("record.versionRequired")
	}
	t, isTime := sent.(time.Time)
	if !isTime {
		parsed, err := versionColumn.ParseValue(sent)
		if err != nil {
			return err
		}
		t = parsed.(time.Time)
	}
	if fmt.Sprint(versionColumn.jsonValue(stored)) != fmt.Sprint(versionColumn.jsonValue(t)) {
		return Conflict("This record was changed by someone else after you loaded it. Reload it and make your change again; nothing was saved.").
			With("record.changed")
	}
	return nil
}

func (f *Form) collect(rows pgx.Rows) ([]map[string]any, error) {
	defer rows.Close()
	out := []map[string]any{}
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return nil, err
		}
		out = append(out, f.record(vals))
	}
	return out, rows.Err()
}

// List returns every record of the form's table (at most maxListRows).
func (e *Engine) List(ctx context.Context, f *Form) ([]map[string]any, error) {
	order := goqu.I(f.Key.Column).Desc()
	if f.OrderBy.Field != "" {
		col := f.Key.Column
		for _, ff := range f.Fields {
			if ff.Field == f.OrderBy.Field {
				col = ff.Column
			}
		}
		order = goqu.I(col).Asc()
		if f.OrderBy.Order == "desc" {
			order = goqu.I(col).Desc()
		}
	}
	sql, args, err := dialect.From(goqu.I(f.Table)).Prepared(true).Select(f.selectCols()...).
		Order(order, goqu.I(f.Key.Column).Desc()).Limit(maxListRows).ToSQL()
	if err != nil {
		return nil, Internal(err)
	}
	var out []map[string]any
	err = e.readTx(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, sql, args...)
		if err != nil {
			return err
		}
		out, err = f.collect(rows)
		return err
	})
	return out, TranslatePG(err)
}

// ParseID reads a record id from the URL.
func (f *Form) ParseID(raw string) (int64, error) {
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		return 0, Invalid(f.Key.Field, "%s must be a positive whole number, got %q.", f.Key.Field, raw).With("form.badId", "field", f.Key.Field)
	}
	return id, nil
}

type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

func (e *Engine) get(ctx context.Context, q querier, f *Form, id int64, lock bool) (map[string]any, error) {
	ds := dialect.From(goqu.I(f.Table)).Prepared(true).Select(f.selectCols()...).Where(goqu.I(f.Key.Column).Eq(id))
	if lock {
		ds = ds.ForUpdate(goqu.Wait)
	}
	sql, args, err := ds.ToSQL()
	if err != nil {
		return nil, Internal(err)
	}
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	list, err := f.collect(rows)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, NotFound("%s %d not found.", f.Resource, id).With("form.notFound", "id", id)
	}
	return list[0], nil
}

// Get returns one record.
func (e *Engine) Get(ctx context.Context, f *Form, id int64) (map[string]any, error) {
	rec, err := e.get(ctx, e.reader(ctx), f, id, false)
	return rec, TranslatePG(err)
}

// applyTransforms applies trim and upper, in order, to a text value.
func applyTransforms(raw any, transform []string) any {
	s, ok := raw.(string)
	if !ok {
		return raw
	}
	for _, t := range transform {
		switch t {
		case "trim":
			s = strings.TrimSpace(s)
		case "upper":
			s = strings.ToUpper(s)
		}
	}
	return s
}

// Validate checks a record body against the form, the same rules the UI's
// JSON Schema states: defaults (on create), transforms, required, types,
// lengths, enums, ranges. It returns the column values to write. Fields the
// form does not declare are ignored.
func (f *Form) Validate(body map[string]any, creating bool) (goqu.Record, error) {
	rec := goqu.Record{}
	for _, ff := range f.Fields {
		raw := applyTransforms(body[ff.Field], ff.Transform)
		empty := raw == nil || raw == ""
		if empty && creating && ff.Default != nil {
			raw, empty = ff.Default, false
		}
		if empty {
			if ff.Required {
				return nil, Invalid(ff.Field, "%s is required.", ff.Field).With("field.required", "field", ff.Field)
			}
			rec[ff.Column] = nil
			continue
		}
		if n, ok := raw.(json.Number); ok {
			raw = n.String()
		}
		val, err := ff.col().ParseValue(raw)
		if err != nil {
			return nil, err
		}
		if err := ff.checkRange(raw); err != nil {
			return nil, err
		}
		rec[ff.Column] = val
	}
	return rec, nil
}

func (ff *FormField) checkRange(raw any) error { return checkRange(ff.Field, ff.Min, ff.Max, raw) }

// checkRange refuses a number of field below min or above max (nil: no bound).
func checkRange(field string, min, max *float64, raw any) error {
	if min == nil && max == nil || raw == nil {
		return nil
	}
	// Exact: a decimal just below a bound is below it, whatever a float would say.
	n, ok := new(big.Rat).SetString(fmt.Sprint(raw))
	if !ok {
		return nil // the type check has already spoken
	}
	if min != nil && n.Cmp(new(big.Rat).SetFloat64(*min)) < 0 {
		return Invalid(field, "%s must be at least %v.", field, *min).With("field.min", "field", field, "min", *min)
	}
	if max != nil && n.Cmp(new(big.Rat).SetFloat64(*max)) > 0 {
		return Invalid(field, "%s must be at most %v.", field, *max).With("field.max", "field", field, "max", *max)
	}
	return nil
}

// Create inserts a record and returns it.
func (e *Engine) Create(ctx context.Context, f *Form, body map[string]any) (map[string]any, error) {
	rec, err := f.Validate(body, true)
	if err != nil {
		return nil, err
	}
	actor := ActorFrom(ctx).Username
	if f.stampCreated {
		rec["created_by"] = actor
	}
	if f.stampUpdated {
		rec["updated_by"] = actor
	}
	var out map[string]any
	err = pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
		if err := e.gate(ctx, tx, f.Approval, f.Resource, "", nil, body,
			map[string]any{"op": "engine.create", "form": f.Name, "body": body}); err != nil {
			return err
		}
		sql, args, err := dialect.Insert(goqu.I(f.Table)).Prepared(true).Rows(rec).Returning(goqu.I(f.Key.Column)).ToSQL()
		if err != nil {
			return err
		}
		var id int64
		if err := tx.QueryRow(ctx, sql, args...).Scan(&id); err != nil {
			return err
		}
		if out, err = e.get(ctx, tx, f, id, false); err != nil {
			return err
		}
		return Audit(ctx, tx, AuditEntry{Action: "record.create", Entity: f.Resource, EntityID: fmt.Sprint(id), After: out})
	})
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", f.Resource, duplicateRecord(err))
	}
	return out, nil
}

// Update replaces the form's fields of a record and returns it.
func (e *Engine) Update(ctx context.Context, f *Form, id int64, body map[string]any) (map[string]any, error) {
	rec, err := f.Validate(body, false)
	if err != nil {
		return nil, err
	}
	if f.stampUpdated {
		rec["updated_by"] = ActorFrom(ctx).Username
		rec["updated_on"] = e.now()
	}
	var out map[string]any
	err = pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
		before, err := e.get(ctx, tx, f, id, true)
		if err != nil {
			return err
		}
		if f.stampUpdated {
			if err := CheckVersion(before[versionColumn.Field], body[versionColumn.Field]); err != nil {
				return err
			}
		}
		if err := e.gate(ctx, tx, f.Approval, f.Resource, fmt.Sprint(id), before, body,
			map[string]any{"op": "engine.update", "form": f.Name, "id": id, "body": body}); err != nil {
			return err
		}
		sql, args, err := dialect.Update(goqu.I(f.Table)).Prepared(true).Set(rec).Where(goqu.I(f.Key.Column).Eq(id)).ToSQL()
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, sql, args...); err != nil {
			return err
		}
		if out, err = e.get(ctx, tx, f, id, false); err != nil {
			return err
		}
		return Audit(ctx, tx, AuditEntry{Action: "record.update", Entity: f.Resource, EntityID: fmt.Sprint(id), Before: before, After: out})
	})
	if err != nil {
		return nil, fmt.Errorf("update %s: %w", f.Resource, duplicateRecord(err))
	}
	return out, nil
}

// Delete removes a record; one still referenced elsewhere is a conflict.
func (e *Engine) Delete(ctx context.Context, f *Form, id int64) error {
	err := pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
		before, err := e.get(ctx, tx, f, id, true)
		if err != nil {
			return err
		}
		if err := e.gate(ctx, tx, f.Approval, f.Resource, fmt.Sprint(id), before, nil,
			map[string]any{"op": "engine.delete", "form": f.Name, "id": id}); err != nil {
			return err
		}
		sql, args, err := dialect.Delete(goqu.I(f.Table)).Prepared(true).Where(goqu.I(f.Key.Column).Eq(id)).ToSQL()
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, sql, args...); err != nil {
			return err
		}
		return Audit(ctx, tx, AuditEntry{Action: "record.delete", Entity: f.Resource, EntityID: fmt.Sprint(id), Before: before})
	})
	if ErrorCode(err) == CodeConflict {
		return &Error{Code: CodeConflict, Message: fmt.Sprintf("This %s is still used by other records and cannot be deleted.", f.Resource), Err: err,
			Key: "form.inUse"}
	}
	return TranslatePG(err)
}

// LookupList returns the entries of one of the form's lookups.
func (e *Engine) LookupList(ctx context.Context, f *Form, name string) ([]map[string]any, error) {
	var l *Lookup
	for _, x := range f.Lookups {
		if strings.EqualFold(x.Name, name) {
			l = x
		}
	}
	if l == nil {
		return nil, NotFound("No such list: %s/%s.", f.Resource, name).With("form.unknown", "name", name)
	}
	ds := dialect.From(goqu.I(l.Source)).Prepared(true)
	if l.Distinct {
		ds = ds.Select(goqu.MIN(goqu.I(l.Value)).As("v"), goqu.I(l.Label).As("l")).
			Where(goqu.I(l.Label).IsNotNull()).GroupBy(goqu.I(l.Label)).Order(goqu.I(l.Label).Asc())
	} else {
		ds = ds.Select(goqu.I(l.Value).As("v"), goqu.I(l.Label).As("l")).Order(goqu.I(l.Label).Asc())
	}
	sql, args, err := ds.Limit(maxListRows).ToSQL()
	if err != nil {
		return nil, Internal(err)
	}
	out := []map[string]any{}
	err = e.readTx(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, sql, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var v, lbl any
			if err := rows.Scan(&v, &lbl); err != nil {
				return err
			}
			out = append(out, map[string]any{l.ValueField: v, l.LabelField: lbl})
		}
		return rows.Err()
	})
	return out, TranslatePG(err)
}

func duplicateRecord(err error) error {
	err = TranslatePG(err)
	var e *Error
	if errors.As(err, &e) && e.Code == CodeConflict && strings.Contains(e.Message, "already exists") {
		return &Error{Code: CodeConflict, Message: "A record with the same values already exists.", Err: err, Key: "db.duplicate"}
	}
	return err
}
