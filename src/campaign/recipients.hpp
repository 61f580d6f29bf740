#pragma once
// The recipient list as a stream of ready-to-send messages: CSV rows → column mapping →
// phone normalisation → rendering → duplicates. Bad rows come back with their reason.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "campaign/campaign.hpp"
#include "campaign/duplicates.hpp"
#include "campaign/media_verdicts.hpp"
#include "campaign/recipient_zone.hpp"
#include "service/messages.hpp"
#include "util/result.hpp"

namespace campaign {

enum class Verdict { ok, invalid, duplicate };

struct Recipient {
    long long row = 0;   // 1 for the first data row
    long long line = 0;  // physical line in the CSV where the row starts
    Verdict verdict = Verdict::ok;
    std::string reason;                // why invalid / duplicate, for people
    std::string raw_phone;             // as written in the CSV
    service::OutgoingMessage message;  // wa_id, userName and the rendered content
    std::string user_id;               // for cleanup; may be empty
    std::string subscriber_id;         // for cleanup; may be empty
    // Whether `message` was rendered in full (a row refused by a content rule still was).
    bool rendered = false;
    std::vector<std::string> defaults;  // placeholders that took their default, each once
    // With schedule.window.timezone: recipient, the row's zone and where it came from; empty
    // otherwise, and for invalid rows.
    RecipientZone zone = {};
};

// What the first pass over the list found, before any row is handed out. Its size does not
// grow with the list: reasons are grouped with the quoted values and long numbers left out,
// and only the most common groups are kept.
struct ListSurvey {
    long long rows = 0;
    long long invalid = 0;
    // The country most of the numbers that carry a country code belong to; "" when
    // recipients.default_country is set (it is not looked for) or no number has one.
    std::string dominant_country;
    std::vector<std::pair<std::string, long long>> reasons;  // most common first
};

// Returns why `campaign` must not be sent when more than abort.max_invalid_share of the rows
// of `survey`, and more than 10, are invalid: the counts, the most common reasons and what to
// change; nothing when it may be sent.
std::optional<std::string> too_many_invalid(const Campaign& campaign, const ListSurvey& survey);

// What a stream holds each row against, besides the campaign file and the CSV.
struct RowChecks {
    const MediaVerdicts* media = nullptr;  // images refused before sending; must outlive the stream
    ZoneOptions zones = {};                // where rows' zones are found (recipient_zone.hpp)
};

class RecipientStream {
public:
    // Opens the CSV of `campaign`, checks that every mapped column and placeholder names a
    // column of its header, and prepares the templates. On failure the message lists every
    // problem, one per line, as "FILE:LINE: …". `duplicates` says where the duplicate
    // pass sorts (tests use it to make the index fail). A row whose image `checks.media`
    // refused is invalid, with the reason, as is one whose time_zone column names no zone
    // (schedule.window.timezone: recipient). Before returning it reads the list through once
    // (twice without recipients.default_country, to find the dominant country first) for
    // survey() and the duplicates.
    static util::Result<RecipientStream> open(const Campaign& campaign, const DuplicateOptions& duplicates = {},
                                              const RowChecks& checks = {});

    // Checks what open() checks before it reads a row: that every column `campaign` maps and every
    // placeholder of its message names a column of its CSV's header (suggesting the nearest), that
    // the CSV can be opened, the country and the zones. Returns every problem, one per line, as
    // "FILE:LINE: …"; nothing when there is none, or when recipients.file is not known (a problem
    // of the campaign file of its own: campaign::read_campaign).
    static std::optional<std::string> check_columns(const Campaign& campaign);

    // The same stream in one pass, for readers that need neither survey() (it reads as empty
    // but for the dominant country) nor the duplicates (every valid row reads as a first): the
    // log's join with the list, the deletion step.
    static util::Result<RecipientStream> open_unsurveyed(const Campaign& campaign, const RowChecks& checks = {});

    RecipientStream(RecipientStream&&) noexcept;
    RecipientStream& operator=(RecipientStream&&) noexcept;
    ~RecipientStream();

    // Reads the next row into `out`: true, or false at the end of the CSV. Fails when the CSV
    // cannot be read on, or when the index of repeated numbers cannot be read back (no later
    // row can be told a first from a repeat); whoever reads must stop there and say so.
    util::Result<bool> next(Recipient& out);

    // The CSV's column names.
    const std::vector<std::string>& header() const;

    // What the first pass over the list found (every row as next() will read it, but for the
    // duplicates).
    const ListSurvey& survey() const;

private:
    struct Impl;
    explicit RecipientStream(std::unique_ptr<Impl> impl);
    // Opens the CSV and binds columns and templates (the stream and its duplicate scan each need one).
    static util::Result<std::unique_ptr<Impl>> make_impl(const Campaign& campaign, const RowChecks& checks);
    // Binds a template campaign's header, body and buttons through `bind` (make_impl's).
    template <typename Bind>
    static void bind_template(const Campaign& campaign, const Bind& bind, Impl& impl);
    // Reads the list of `impl` to its end and returns the country most of its numbers that
    // carry a country code belong to, or "".
    static util::Result<std::string> dominant_country(Impl& impl);
    // make_impl, with the list's dominant country found first without recipients.default_country
    // (into `dominant`, else "").
    static util::Result<std::unique_ptr<Impl>> make_impl_for_country(const Campaign& campaign, const RowChecks& checks,
                                                                     std::string& dominant);
    std::unique_ptr<Impl> m_impl;
};

}  // namespace campaign
