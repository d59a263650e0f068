-- +goose Up
-- An upload is stored in parts of 1 MiB until its job has run, instead of
-- one bytea: the server writes it, and the job reads it back, a part at a
-- time, so neither holds a file of up to UPLOAD_MAX_BYTES in memory. The
-- parts are deleted when the import finishes, loaded or failed.
create table import_file_part (
    import_file_id bigint not null references import_file (id) on delete cascade,
    seq            integer not null check (seq >= 0),
    data           bytea not null,
    primary key (import_file_id, seq)
);
-- +goose StatementBegin
do $$
begin
    alter table import_file_part alter column data set compression lz4;
exception when feature_not_supported or invalid_parameter_value then
    raise notice 'lz4 is not available here: uploads stay compressed with pglz';
end $$;
-- +goose StatementEnd
insert into import_file_part (import_file_id, seq, data)
select f.id, s.seq, substring(f.content from s.seq * 1048576 + 1 for 1048576)
from import_file f
cross join lateral generate_series(0, greatest((length(f.content) - 1) / 1048576, 0)) as s(seq)
where f.content is not null;
alter table import_file drop column content;

-- +goose Down
alter table import_file add column content bytea; -- the upload until its job has run; cleared after
-- +goose StatementBegin
do $$
begin
    alter table import_file alter column content set compression lz4;
exception when feature_not_supported or invalid_parameter_value then
    raise notice 'lz4 is not available here: uploads stay compressed with pglz';
end $$;
-- +goose StatementEnd
update import_file f set content = p.content
from (select import_file_id, string_agg(data, ''::bytea order by seq) as content
      from import_file_part group by import_file_id) p
where p.import_file_id = f.id;
drop table import_file_part;
