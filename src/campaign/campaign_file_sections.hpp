#pragma once
// Internal to the campaign file loader: one reader per top-level section. Each fills its part
// of the Campaign from `root` and reports what is wrong to `root`'s context.

#include "campaign/campaign.hpp"
#include "campaign/campaign_file_yaml.hpp"

namespace campaign::detail {

// `service`: base URL, credentials, headers, TLS. The access token is required only when
// `cleanup` deletes contacts.
void read_service(const Section& root, const Cleanup& cleanup, service::ServiceConfig& out);

// `recipients`: the CSV, its columns, phone defaults. The `user_id` column is required only
// when `cleanup` deletes contacts.
void read_recipients(const Section& root, const Cleanup& cleanup, Recipients& out);

// `message` and `template`.
void read_message(const Section& root, Campaign& out);

// `rate`, `retry` and `abort`.
void read_pacing(const Section& root, Campaign& out);

// `cleanup`.
void read_cleanup(const Section& root, Cleanup& out);

// `account` and `suppression`, after `service` (the account's default name is its host) and
// `rate` (a messaging limit sets rate.per_day when that is not given).
void read_account(const Section& root, const std::string& base_url, Campaign& out);

// `pricing`, after `message`: the rate card (read for a template campaign, or when named) and
// its currency.
void read_pricing(const Section& root, Campaign& out);

// `schedule`: start time and sending window.
void read_schedule(const Section& root, Schedule& out);

}  // namespace campaign::detail
