#pragma once
// What run, resume and delete-contacts share: the --log-format option, loading the campaign,
// sending with its summary, and the exit code of a run.

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "account/ledger.hpp"
#include "campaign/campaign.hpp"
#include "campaign/campaign_file.hpp"
#include "cli/campaign_check.hpp"
#include "cli/output.hpp"
#include "observe/exporter.hpp"
#include "runner/account_book.hpp"
#include "runner/media_preflight.hpp"
#include "runner/send.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace cli {

// Where and how run, resume and delete-contacts log: --log-format and --log-file.
struct LogOptions {
    std::string format = "text";
    std::string file;  // empty: no log file
};

// Adds --log-format text|json and --log-file PATH to `sub`, stored in `options`.
void add_log_options(CLI::App& sub, LogOptions& options);

// Makes the command's Output as `options` say and returns what `body` returns with it, what
// it throws reported as reporting_fatal_errors does. A log file that cannot be opened, or that
// is one of `inputs` (the files named on the command line), is exit code 2 before anything
// else is done.
int with_output(const LogOptions& options, const std::vector<std::string>& inputs,
                const std::function<int(Output&)>& body);

// Whether the log file is one of the files of `campaign` (the campaign file, its CSV, result
// log, ledger, suppression files): if so it is reported through `out` (exit code 2) and no
// longer written.
bool log_file_clashes(const campaign::Campaign& campaign, Output& out, const std::string& results = {});

// Whether `metrics`' file is one of `campaign`'s own files or the log file (then reported,
// exit 2): the metrics file is replaced every 10 s.
bool metrics_file_clashes(const campaign::Campaign& campaign, const observe::ExportTargets& metrics, Output& out,
                          const std::string& results = {});

// Adds --sync interval|every|none (the result log's durability) to `sub`, stored in `sync`.
void add_sync_option(CLI::App& sub, std::string& sync);

// Adds --late-ok (schedule.not_after and schedule.max_delay waived for one run) to `sub`,
// stored in `late_ok`.
void add_late_ok_flag(CLI::App& sub, bool& late_ok);

// Adds --budget AMOUNT (pricing.budget for this run), stored in `budget`.
void add_budget_option(CLI::App& sub, std::optional<double>& budget);

// Runs `body` and returns its exit code; what it throws is reported through `out` as
// "wacamp: error: …" (or an error object) with exit code 3.
int reporting_fatal_errors(Output& out, const std::function<int()>& body);

// Loads the campaign at `path`, reporting every problem through `out` when it cannot;
// registers its secrets with `out`.
std::optional<campaign::Campaign> load_campaign_or_report(const std::string& path, campaign::SecretsPolicy secrets,
                                                          Output& out);

// For a template campaign (message.type: template), asks the service for its template list once
// and checks the campaign against its template (runner::resolve_template), filling in the
// template's id; with TemplateList::offline (the dry run's and validate's --offline) says
// "template not checked" instead. Returns the exit code when the command must end (2: the template does not
// fit, or the list cannot be had; 3: the service refused the key or the account, a certificate,
// a wrong endpoint), having said why; nothing when it may go on.
std::optional<int> resolve_template_or_report(campaign::Campaign& campaign, TemplateList list, Output& out);

// Runs `campaign` with `options` and prints its summary (or why nothing was sent); returns
// the exit code. Its metrics go to `metrics` (none: no metrics) from the start of sending
// to the end; a run refused before it sent (exit 2) leaves them as they were.
int send_and_summarise(const campaign::Campaign& campaign, const runner::SendOptions& options, runner::RunUi& ui,
                       const std::atomic<int>& stops, Output& out, const observe::ExportTargets& metrics);

// Checks the images of the rows `stream` (just opened, no verdicts) would send, for
// --check-media, through a transport of its own: prints the warnings and a summary through
// `out`, and returns the report; nothing (after printing the error) when the check failed.
std::optional<runner::MediaReport> check_media_or_report(const campaign::Campaign& campaign,
                                                         campaign::RecipientStream& stream, Output& out);

// Opens the ledger `campaign` names (account::open_ledger with runner::ledger_options: read_write
// for a run, read_only for a dry run and validate) as its runner::AccountBook. Null when
// account.ledger is off. Fails naming the ledger's path.
util::Result<std::unique_ptr<runner::AccountBook>> open_account_book(const campaign::Campaign& campaign,
                                                                     account::Access access,
                                                                     account::Sync sync = account::Sync::full);

// Opens the ledger of `campaign` read only, for a dry run or validate (a missing ledger reads as
// an empty one and is not created), and takes its suppression.files in, warning through `out`
// of rows that hold no number. Null when account.ledger is off; nothing (after printing the
// error, which names the ledger or the file) when either cannot be read.
std::optional<std::unique_ptr<runner::AccountBook>> read_account_or_report(const campaign::Campaign& campaign,
                                                                           Output& out);

// The exit code for a run that ended as `report` says.
int exit_code_for(const runner::SendReport& report);

// The log's durability for a --sync value ("every", "none", else interval).
results::Durability durability_of(const std::string& sync);

// Loads the campaign whose result log is at `path` (the file its header names, its secrets
// required), reporting through `out` why it cannot: a log that is not one, a dry run's, a
// campaign file with problems.
std::optional<campaign::Campaign> load_campaign_of_log(const std::string& path, Output& out);

}  // namespace cli
