-- +goose Up
-- Each exchange-rate row also gives its currency in pounds sterling: GBP is
-- one of the currencies the product reconciles (the demo's NatWest account,
-- Amex sales), so its column stands beside the spec's DKK, EUR, USD, SEK
-- and NOK. Rows already stored get it from their USD rate and the pound's
-- USD rate of the same day, where both are known.
alter table currency_exchange_rate add column gbp numeric(20, 8);
update currency_exchange_rate r set gbp = round(r.usd / p.usd, 8)
from currency_exchange_rate p
where p.code = 'GBP' and p.exchange_rate_on = r.exchange_rate_on and p.usd > 0 and r.usd is not null;

-- +goose Down
alter table currency_exchange_rate drop column gbp;
