-- +goose Up
-- The bank overview pivot (screen 15) sums the USD amounts of processed
-- bookings per day and actor under equality filters on direction and the
-- three distribution flags. This index holds every column the pivot reads,
-- so it is answered by an index-only scan of a narrow index instead of a
-- scan of the wide bank_booking table; the default filters (In, Yes, any,
-- Yes) are a prefix of it, and it returns their rows already ordered by day.
create index bank_booking_pivot_idx on bank_booking
    (in_or_out, affects_balance, dist_rvn_settle, booked_date, actor)
    include (distr_driver, in_usd, out_usd);

-- +goose Down
drop index bank_booking_pivot_idx;
