#pragma once
// A campaign in a temporary folder, pointed at a sandbox: the common setup of end-to-end tests.

#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "harness.hpp"

namespace e2e {

inline const std::string k_api_key = "sandbox-key";
inline const std::string k_access_token = "sandbox-token";

// "phone,name,user_id\n" and `count` valid Indian mobile numbers, wa_ids 919812300000 + i.
std::string numbers_csv(int count, int first = 0);

// The wa_id of row `i` (0-based) of numbers_csv.
std::string numbers_wa_id(int i);

// "phone,name,user_id\n" and `count` Indian mobile numbers as an operator's list holds them,
// in seven formats by turns: "+91 …", "0091…", "91…", "0…", and bare ten digits three ways
// ("6633774138", "66337 74138", "663-377-4138"). Many of the bare ones also read as foreign
// numbers (+66 Thailand, +65 Singapore, +82 South Korea). Row i (0-based) is seven_formats_wa_id(i).
std::string seven_formats_csv(int count);
std::string seven_formats_wa_id(int i);

struct CampaignFixture {
    // The message of every campaign that does not give its own.
    static inline const std::string k_text_message = "message:\n  type: text\n  text: \"Hi {{name}}\"\n";

    // Writes `csv` and a campaign whose body is the standard one plus `extra_yaml` (top-level
    // keys, which may replace the defaults of `rate:` etc. if `standard` is false).
    CampaignFixture(const Sandbox& sandbox, const std::string& csv, const std::string& extra_yaml = "",
                    const std::string& message_yaml = k_text_message);
    // The same, its requests sent to `base_url` (a scripted or TLS server) rather than to a sandbox.
    CampaignFixture(const std::string& base_url, const std::string& csv, const std::string& extra_yaml = "",
                    const std::string& message_yaml = k_text_message);

    TempDir dir;
    std::filesystem::path campaign;
    std::filesystem::path csv;
    std::filesystem::path log;
    EnvOverrides env;

    // Runs `wacamp ARGS…` with the fixture's environment.
    ProcessResult wacamp(const std::vector<std::string>& args) const;
    // The result log's records.
    std::vector<nlohmann::json> records() const { return read_jsonl(log); }
    // Each row's status as the log leaves it: its latest result, or unknown after an attempt.
    std::map<long long, std::string> final_status() const;
};

// Each row's status as the result log at `log` leaves it (CampaignFixture::final_status).
std::map<long long, std::string> final_status_of(const std::filesystem::path& log);

// How many "ok" send-message answers the sandbox journaled per wa_id.
std::map<std::string, int> delivered(const Sandbox& sandbox);

// How many send-message requests the sandbox journaled for `wa_id`, whatever their answer.
int requests_for(const Sandbox& sandbox, const std::string& wa_id);

// The last result record of `row` in `f`'s log; null when it has none.
nlohmann::json result_of(const CampaignFixture& f, long long row);

// Opt-outs that arrive while a campaign runs: `slow` (numbers_csv(10), one a second) runs in the
// background; once its log holds an attempt (its rows are screened), `quick` (numbers_csv(1, 7),
// sharing slow's ledger; the sandbox answers 131050 for that number) runs to its end, then
// `suppress add` puts numbers_wa_id(8) on the list by hand; then slow runs to its end.
struct MidRunOptOut {
    bool started = false;  // slow logged an attempt in time
    int quick_code = -1;
    int added_code = -1;
    int slow_code = -1;
    std::string slow_err;
};
MidRunOptOut run_opt_out_midway(const CampaignFixture& slow, const CampaignFixture& quick);
// Checks what `run` must leave: both numbers' rows of `slow` skipped (suppressed, the first saying
// opted_out), no request for either from `slow`, its other 8 rows sent, every exit code as expected.
void check_opt_out_midway(const Sandbox& sandbox, const CampaignFixture& slow, const MidRunOptOut& run);

// Waits, up to `seconds`, until `done` holds; whether it did.
bool wait_until(const std::function<bool()>& done, std::chrono::seconds seconds = std::chrono::seconds(30));

// How many "ok" send-message answers the sandbox journaled, all numbers together.
int total_delivered(const Sandbox& sandbox);

// Two campaigns of one account run at once (`run --no-progress`) until the sandbox has
// delivered `cap` messages and one of them says it waits for the daily cap (at most 30 s),
// half a second more (a send past the cap would show), then both are interrupted (SIGINT).
struct PairRun {
    bool capped = false;  // the cap was reached and a run said so in time
    int code_first = -1;
    int code_second = -1;
    std::string out_first, err_first, out_second, err_second;
};
PairRun run_pair_to_daily_cap(const Sandbox& sandbox, const CampaignFixture& first, const CampaignFixture& second,
                              int cap);

// Whether `text` appears in any output, log or journal given.
bool leaks(const std::string& secret, const std::vector<std::string>& texts);

// How many send-message requests the sandbox journaled: all, or those with `outcome`
// ("ok", "rate_limited", "error", "dropped", "unauthorized", …).
int send_requests(const Sandbox& sandbox, const std::string& outcome = "");

// Checks that rows 1..`rows` of `f`'s log each end sent or unknown (as after a kill in flight and
// a resume); returns how many are unknown.
int sent_or_unknown(const CampaignFixture& f, int rows);

// How many rows of the log end with each status (final_status, tallied).
std::map<std::string, int> status_counts(const CampaignFixture& fixture);

// How many records of the log are of `event` ("attempt", "result", "delete", "end").
int count_events(const CampaignFixture& fixture, const std::string& event);

// "" when `sent` (from delivered()) holds `expected` numbers, each delivered once; otherwise
// what is wrong ("919812300003 delivered 2 times", "38 numbers delivered, not 40").
std::string once_each(const std::map<std::string, int>& sent, size_t expected);

// Whether `part` appears in `text`.
bool contains(const std::string& text, std::string_view part);

// The objects of `lines` (--log-format json output, a --log-file) whose "event" is `event`.
std::vector<nlohmann::json> of_event(const std::vector<nlohmann::json>& lines, const std::string& event);

// The JSON objects of `text`, one per non-empty line (--log-format json output).
std::vector<nlohmann::json> json_lines(const std::string& text);

// A shell word: `text` in single quotes.
std::string quoted(const std::string& text);

// Runs `wacamp ARGS…` with the fixture's environment on a pseudo-terminal made by script(1)
// from util-linux (stdin, stdout and stderr all on it), typing `typed` at it (nothing by
// default). Returns the exit code and everything the terminal showed (stdout and stderr
// together, with "\r\n" line ends, echo included).
// `redirects` (e.g. "2>run.err", relative to the fixture's folder) follow the command, as a
// shell at that terminal would apply them.
ProcessResult on_terminal(const CampaignFixture& f, const std::vector<std::string>& args, const std::string& typed = "",
                          const std::string& redirects = "");

// Waits, a few seconds at most, until the sandbox has delivered `count` messages.
void wait_for_delivered(const Sandbox& sandbox, size_t count);

// Replaces the first `from` with `to` in the fixture's campaign file; throws when absent.
void edit_campaign(const CampaignFixture& fixture, const std::string& from, const std::string& to);

// Adds `line` (indented by two spaces) to the fixture's service section.
void add_service_line(const CampaignFixture& fixture, const std::string& line);

// A port on 127.0.0.1 that was free when asked.
int free_port();

// Whether something accepts connections on 127.0.0.1:`port`.
bool accepts_connections(int port);

// `openssl s_server -www` with a fresh self-signed certificate for 127.0.0.1, until destroyed.
class TlsServer {
public:
    explicit TlsServer(const TempDir& dir);
    ~TlsServer();
    TlsServer(const TlsServer&) = delete;
    TlsServer& operator=(const TlsServer&) = delete;
    // The port it listens on; 0 when the openssl tool is missing or did not start.
    int port() const { return m_port; }
    std::string url() const { return "https://127.0.0.1:" + std::to_string(m_port); }
    const std::filesystem::path& cert() const { return m_cert; }

private:
    std::filesystem::path m_cert;
    pid_t m_pid = -1;
    int m_port = 0;
};

}  // namespace e2e
