#pragma once
// The campaign file as a value (docs/campaign-file.md), after defaults and `${ENV}`
// interpolation. Paths are already resolved relative to the campaign file.

#include <chrono>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "service/config.hpp"
#include "util/redact.hpp"
#include "util/redis_url.hpp"

namespace campaign {

enum class MessageType { text, image, template_message };
// A template's header, as the campaign fills it (docs/campaign-file.md "Template campaigns").
enum class HeaderKind { none, text, image, video, document };
enum class CleanupScope { sent, all };
enum class Ambiguous { retry, hold };  // no answer (a timeout, a lost connection) after the request left

struct Columns {
    std::string wa_id = "phone";     // required in the file
    std::string user_name = "name";  // required in the file
    std::string user_id;             // for cleanup; empty when not mapped
    std::string subscriber_id;       // for cleanup, optional
    std::string time_zone = {};      // a row's IANA zone, with schedule.window.timezone: recipient; optional
};

struct Recipients {
    std::string file;  // resolved path of the CSV
    char delimiter = ',';
    Columns columns;
    std::string default_country;  // ISO 3166 region ("IN"); empty: numbers must be international
    bool dedupe = true;
};

// One variable of a template's body: positional ({{1}}, in order; `name` empty) or named.
struct TemplateVariable {
    std::string name;
    std::string value;  // a placeholder string, like `text`
};

// The variable part of a URL button, by the button's position among the template's buttons.
struct TemplateButton {
    int index = 0;
    std::string text;  // a placeholder string
};

// `message.type: template`: an approved template of the account and what fills it in.
struct TemplateMessage {
    std::string name;      // the template's configuration.name
    std::string language;  // its configuration.language; empty: the only one by that name
    // message.template_id: the record's `_id` (24 hex digits, lower-case), when several records
    // share the name and language; empty: none given.
    std::string template_id;
    HeaderKind header = HeaderKind::none;
    std::string header_value;  // the text, or the media's link (a placeholder string)
    std::string filename;      // a document header's file name (a placeholder string); may be empty
    bool named = false;        // the body's variables are named ({customer: …}), not positional
    std::vector<TemplateVariable> body;
    std::vector<TemplateButton> buttons;
    // Found in the template list by the check before the first send; empty until then (and
    // when the check was skipped with --offline).
    std::string id;                          // the record's `_id`: send-template's templateId
    std::string category;                    // MARKETING, UTILITY, …
    std::string header_text;                 // configuration.textHeader
    std::string body_text;                   // configuration.body
    std::string footer;                      // configuration.footer
    std::vector<std::string> button_labels;  // the buttons' texts
    // message.paused_regions: regions (ISO 3166-1 alpha-2) whose numbers a MARKETING template is
    // not sent to (Meta delivers none there); default the United States.
    std::vector<std::string> paused_regions{"US"};
    // message.category: the category the template must have in the template list (MARKETING,
    // UTILITY or AUTHENTICATION); empty: any. A pin: run and resume refuse another (exit 2).
    std::string pinned_category;
    // message.recheck: how often the template list is read again while sending, to stop when the
    // template changes under the campaign (runner::TemplateRecheck); nullopt: off.
    std::optional<std::chrono::milliseconds> recheck = std::chrono::minutes(10);
};

// Message fields are templates with {{column}} / {{column|default}} placeholders.
struct Message {
    MessageType type = MessageType::text;
    std::string text;                  // type text
    std::string source;                // type image: link to the image
    std::optional<std::string> label;  // type image: caption
    bool check_media = false;          // type image (or a template's media header): checked before sending
    TemplateMessage templated;         // type template
};

struct TemplateCheck {
    std::string name;  // must exist with status APPROVED
};

// `rate.per_recipient`: at most `max` messages to one number within `per`, over every campaign
// sharing the account's ledger.
struct PerRecipient {
    long long max = 1;
    std::chrono::milliseconds per{7LL * 24 * 3600 * 1000};
};

struct Rate {
    // `per_second: unlimited`: no pacing, only the in-flight limit holds the queue back.
    // Infinity rather than an optional so that the rate stays one number for every reader.
    static constexpr double k_unlimited = std::numeric_limits<double>::infinity();

    double per_second = 10;  // requests started per second, or k_unlimited
    int burst = 1;
    std::optional<int> concurrency;    // requests in flight; nullopt: `auto` (Little's law)
    int max_concurrency = 256;         // the most `auto` may keep in flight
    std::optional<long long> per_day;  // with a ledger: unique numbers the account messaged in 24 h
    std::optional<PerRecipient> per_recipient;

    // True for `per_second: unlimited`.
    bool unlimited() const { return per_second == k_unlimited; }
};

struct Retry {
    int max_attempts = 5;
    std::chrono::milliseconds initial_backoff{1'000};
    std::chrono::milliseconds max_backoff{60'000};
    Ambiguous ambiguous = Ambiguous::hold;  // wacamp never sends twice on its own
};

struct Abort {
    int max_consecutive_failures = 25;
    // How long the service may throttle without a break (every answer a 429, or a Retry-After
    // pause) before the run stops with reason `throttled`.
    std::chrono::milliseconds max_throttled{30 * 60 * 1000};
    // The share of invalid rows (0..1) above which, with more than 10 of them, nothing is sent.
    double max_invalid_share = 0.05;
};

struct Window {
    std::string timezone;     // IANA name, e.g. "Asia/Kolkata"; empty when per_recipient
    std::vector<int> days;    // 0 = Sunday … 6 = Saturday
    int from_minute = 0;      // minutes after local midnight, inclusive
    int to_minute = 24 * 60;  // exclusive
    // `timezone: recipient`: the window is kept in each row's own zone (recipient_zone.hpp),
    // `fallback_timezone` for rows whose zone is neither given nor told by their number.
    bool per_recipient = false;
    std::string fallback_timezone = {};  // IANA name; set exactly when per_recipient
};

struct Schedule {
    std::optional<std::chrono::system_clock::time_point> start_at;
    std::optional<Window> window;
    // `not_after`: no request leaves at or after it (a hard deadline for the whole campaign).
    std::optional<std::chrono::system_clock::time_point> not_after{};
    // `max_delay` (requires start_at): a run that has sent nothing by start_at + max_delay sends nothing.
    std::optional<std::chrono::milliseconds> max_delay{};
};

// `account`: whose limits and lists a campaign shares (docs/ledger.md).
struct Account {
    std::string name;                   // default: host[:port] of service.base_url
    std::optional<std::string> ledger;  // resolved path, or a PostgreSQL URL without its password; nullopt: `off`
    std::string ledger_password = {};   // a PostgreSQL URL's password (a secret); empty: none, or libpq's own
    std::optional<util::RedisUrl> rate_store;  // the Redis server holding the shared pace (docs/pace.md)
    // `messaging_limit`: Meta's tier, unique numbers a day (250 … 100000); nullopt: unlimited or
    // not given. A number becomes rate.per_day when that is not given.
    std::optional<long long> messaging_limit = {};
    bool messaging_limit_given = false;  // given, `unlimited` included
};

// `suppression`: numbers never to message.
struct SuppressionLists {
    std::vector<std::string> files;  // resolved paths of do-not-contact CSVs
    long long undeliverable_after = 2;
};

struct Cleanup {
    bool delete_contacts = false;
    CleanupScope only = CleanupScope::sent;
    int batch_size = 100;
};

class RateCard;

// `pricing`: what the rows cost (docs/pricing.md).
struct Pricing {
    // The card's path: pricing.rate_card resolved, else the card installed with wacamp; empty
    // when none was read (a text or image campaign without pricing.rate_card).
    std::string rate_card;
    bool default_card = true;  // pricing.rate_card was not given
    std::string currency = "USD";
    std::shared_ptr<const RateCard> card;  // read once, with the campaign file; null when none was read
    // pricing.budget (or --budget for one run): the most the campaign may cost, in `currency`.
    std::optional<double> budget;
};

struct Campaign {
    std::string name;
    std::string file;  // path of the campaign file itself
    service::ServiceConfig service;
    Recipients recipients;
    Message message;
    std::optional<TemplateCheck> template_check;
    Rate rate;
    Retry retry;
    Abort abort;
    Schedule schedule;
    Cleanup cleanup;
    Account account;
    SuppressionLists suppression;
    Pricing pricing;
    std::string results;               // resolved path; default results/NAME.jsonl
    std::map<std::string, int> lines;  // "message.text" → 1-based line in the file, for errors
};

// Returns where `key` ("message.body[2]") sits in `campaign`'s file: "FILE:LINE", the line of the
// key or, when it has none, of the nearest key that holds it ("message.body"); "FILE" when none
// has a line.
std::string where(const Campaign& campaign, const std::string& key);

// Returns the values never to show: `campaign`'s API key, access token, the values of its
// `service.headers` (which may carry tokens too) and the passwords of its ledger and rate store.
std::vector<std::string> secrets_of(const Campaign& campaign);

// Returns a Redactor holding secrets_of(`campaign`).
util::Redactor redactor_for(const Campaign& campaign);

}  // namespace campaign
