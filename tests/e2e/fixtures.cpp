#include "fixtures.hpp"

#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace e2e {

std::string numbers_wa_id(int i) {
    return std::to_string(919812300000LL + i);
}

std::string numbers_csv(int count, int first) {
    std::string csv = "phone,name,user_id\n";
    for (int i = first; i < first + count; ++i) {
        csv += fmt::format("+{},Person {},u-{}\n", numbers_wa_id(i), i, i);
    }
    return csv;
}

namespace {

// The ten national digits of row `i` of seven_formats_csv.
std::string seven_formats_national(int i) {
    static constexpr const char* k_starts[] = {"98123", "66337", "65817", "82225"};
    return fmt::format("{}{:05}", k_starts[i % 4], i);
}

}  // namespace

std::string seven_formats_wa_id(int i) {
    return "91" + seven_formats_national(i);
}

std::string seven_formats_csv(int count) {
    std::string csv = "phone,name,user_id\n";
    for (int i = 0; i < count; ++i) {
        const std::string n = seven_formats_national(i);
        std::string phone;
        switch (i % 7) {
        case 0: phone = "+91 " + n; break;
        case 1: phone = "0091" + n; break;
        case 2: phone = "91" + n; break;
        case 3: phone = "0" + n; break;
        case 4: phone = n; break;
        case 5: phone = n.substr(0, 5) + " " + n.substr(5); break;
        default: phone = n.substr(0, 3) + "-" + n.substr(3, 3) + "-" + n.substr(6); break;
        }
        csv += fmt::format("{},Person {},u-{}\n", phone, i, i);
    }
    return csv;
}

CampaignFixture::CampaignFixture(const Sandbox& sandbox, const std::string& csv_text, const std::string& extra_yaml,
                                 const std::string& message_yaml)
    : CampaignFixture(sandbox.url(), csv_text, extra_yaml, message_yaml) {}

CampaignFixture::CampaignFixture(const std::string& base_url, const std::string& csv_text,
                                 const std::string& extra_yaml, const std::string& message_yaml) {
    csv = dir.write("recipients.csv", csv_text);
    log = dir.path() / "results" / "e2e.jsonl";
    std::string yaml =
        "name: e2e\n"
        "service:\n"
        "  base_url: ${WACAMP_BASE_URL}\n"
        "  api_key: ${WACAMP_API_KEY}\n"
        "  access_token: ${WACAMP_ACCESS_TOKEN}\n"
        "  timeout: 5s\n"
        "recipients:\n"
        "  file: recipients.csv\n"
        "  columns: {wa_id: phone, user_name: name, user_id: user_id}\n"
        "  default_country: IN\n" +
        message_yaml + "results: results/e2e.jsonl\n" + extra_yaml;
    campaign = dir.write("campaign.yaml", yaml);
    // A ledger of the test's own: tests share a sandbox (one account), not its history.
    env = {{"WACAMP_BASE_URL", base_url},
           {"WACAMP_API_KEY", k_api_key},
           {"WACAMP_ACCESS_TOKEN", k_access_token},
           {"XDG_STATE_HOME", (dir.path() / "state").string()}};
}

ProcessResult CampaignFixture::wacamp(const std::vector<std::string>& args) const {
    return run_wacamp(args, env);
}

std::map<long long, std::string> CampaignFixture::final_status() const {
    return final_status_of(log);
}

std::map<long long, std::string> final_status_of(const std::filesystem::path& log) {
    std::map<long long, std::string> out;
    std::map<long long, std::optional<std::string>> before_attempt;  // what an `unsent` restores
    for (const auto& r : read_jsonl(log)) {
        const auto event = r.value("event", "");
        if (event != "result" && event != "attempt" && event != "unsent") {
            continue;
        }
        const auto row = r["row"].get<long long>();
        if (event == "result") {
            out[row] = r["status"].get<std::string>();
        } else if (event == "attempt") {
            before_attempt[row] = out.contains(row) ? std::optional(out[row]) : std::nullopt;
            out[row] = "unknown";  // until a result follows
        } else if (const auto& before = before_attempt[row]) {
            out[row] = *before;
        } else {
            out.erase(row);  // not acted on: as if never attempted
        }
    }
    return out;
}

int sent_or_unknown(const CampaignFixture& f, int rows) {
    auto status = f.final_status();
    int unknown = 0;
    for (int row = 1; row <= rows; ++row) {
        CAPTURE(row);
        REQUIRE(status.count(row) == 1);
        CHECK((status[row] == "sent" || status[row] == "unknown"));
        unknown += status[row] == "unknown" ? 1 : 0;
    }
    return unknown;
}

std::map<std::string, int> delivered(const Sandbox& sandbox) {
    std::map<std::string, int> out;
    for (const auto& j : sandbox.journal()) {
        if (j.value("path", "") == "/whatsapp-automation/wa/send-message" && j.value("outcome", "") == "ok") {
            ++out[j.value("wa_id", "")];
        }
    }
    return out;
}

int total_delivered(const Sandbox& sandbox) {
    int n = 0;
    for (const auto& [wa_id, times] : delivered(sandbox)) {
        n += times;
    }
    return n;
}

int requests_for(const Sandbox& sandbox, const std::string& wa_id) {
    int n = 0;
    for (const auto& j : sandbox.journal()) {
        n += j.value("path", "") == "/whatsapp-automation/wa/send-message" && j.value("wa_id", "") == wa_id ? 1 : 0;
    }
    return n;
}

nlohmann::json result_of(const CampaignFixture& f, long long row) {
    nlohmann::json out;
    for (const auto& r : f.records()) {
        if (r.value("event", "") == "result" && r["row"] == row) {
            out = r;
        }
    }
    return out;
}

MidRunOptOut run_opt_out_midway(const CampaignFixture& slow, const CampaignFixture& quick) {
    Background run({"run", slow.campaign.string(), "--no-progress"}, slow.env);
    MidRunOptOut out;
    out.started = wait_until([&] { return count_events(slow, "attempt") > 0; });
    out.quick_code = quick.wacamp({"run", quick.campaign.string(), "--no-progress"}).exit_code;
    out.added_code =
        slow.wacamp({"suppress", "add", "--campaign", slow.campaign.string(), "+" + numbers_wa_id(8)}).exit_code;
    out.slow_code = run.wait();
    out.slow_err = run.err();
    return out;
}

void check_opt_out_midway(const Sandbox& sandbox, const CampaignFixture& slow, const MidRunOptOut& run) {
    CAPTURE(run.slow_err);
    REQUIRE(run.started);
    CHECK(run.quick_code == 1);
    CHECK(run.added_code == 0);
    CHECK(run.slow_code == 0);
    for (const long long row : {8, 9}) {
        const auto rec = result_of(slow, row);
        CAPTURE(rec.dump());
        CHECK(rec["status"] == "skipped");
        CHECK(rec["cause"] == "suppressed");
    }
    CHECK(contains(result_of(slow, 8).value("error", ""), "opted_out"));
    CHECK(requests_for(sandbox, numbers_wa_id(7)) == 1);  // the quick campaign's only
    CHECK(requests_for(sandbox, numbers_wa_id(8)) == 0);
    CHECK(status_counts(slow)["sent"] == 8);
}

bool wait_until(const std::function<bool()>& done, std::chrono::seconds seconds) {
    const auto deadline = std::chrono::steady_clock::now() + seconds;
    while (std::chrono::steady_clock::now() < deadline) {
        if (done()) {
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return done();
}

PairRun run_pair_to_daily_cap(const Sandbox& sandbox, const CampaignFixture& first, const CampaignFixture& second,
                              int cap) {
    Background a({"run", first.campaign.string(), "--no-progress"}, first.env);
    Background b({"run", second.campaign.string(), "--no-progress"}, second.env);
    const auto paused = [](const Background& p) { return contains(p.out() + p.err(), "daily cap"); };
    PairRun run;
    run.capped = wait_until([&] { return total_delivered(sandbox) >= cap && (paused(a) || paused(b)); });
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    a.signal(SIGINT);
    b.signal(SIGINT);
    run.code_first = a.wait();
    run.code_second = b.wait();
    run.out_first = a.out();
    run.err_first = a.err();
    run.out_second = b.out();
    run.err_second = b.err();
    return run;
}

bool leaks(const std::string& secret, const std::vector<std::string>& texts) {
    for (const auto& t : texts) {
        if (t.find(secret) != std::string::npos) {
            return true;
        }
    }
    return false;
}

int send_requests(const Sandbox& sandbox, const std::string& outcome) {
    int n = 0;
    for (const auto& j : sandbox.journal()) {
        if (j.value("path", "") == "/whatsapp-automation/wa/send-message" &&
            (outcome.empty() || j.value("outcome", "") == outcome)) {
            ++n;
        }
    }
    return n;
}

std::map<std::string, int> status_counts(const CampaignFixture& fixture) {
    std::map<std::string, int> out;
    for (const auto& [row, status] : fixture.final_status()) {
        ++out[status];
    }
    return out;
}

std::string once_each(const std::map<std::string, int>& sent, size_t expected) {
    std::string problems;
    for (const auto& [wa_id, times] : sent) {
        if (times != 1) {
            problems += fmt::format("{} delivered {} times; ", wa_id, times);
        }
    }
    if (sent.size() != expected) {
        problems += fmt::format("{} numbers delivered, not {}", sent.size(), expected);
    }
    return problems;
}

std::vector<nlohmann::json> of_event(const std::vector<nlohmann::json>& lines, const std::string& event) {
    std::vector<nlohmann::json> out;
    for (const auto& j : lines) {
        if (j.value("event", "") == event) {
            out.push_back(j);
        }
    }
    return out;
}

bool contains(const std::string& text, std::string_view part) {
    return text.find(part) != std::string::npos;
}

std::vector<nlohmann::json> json_lines(const std::string& text) {
    std::vector<nlohmann::json> out;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        if (!line.empty()) {
            out.push_back(nlohmann::json::parse(line));
        }
    }
    return out;
}

std::string quoted(const std::string& text) {
    std::string out = "'";
    for (char c : text) {
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return out + "'";
}

ProcessResult on_terminal(const CampaignFixture& f, const std::vector<std::string>& args, const std::string& typed,
                          const std::string& redirects) {
    std::string script = "cd " + quoted(f.dir.path().string()) + "\n";
    for (const auto& [name, value] : f.env) {
        script += "export " + name + "=" + quoted(value) + "\n";
    }
    script += "exec " + quoted(WACAMP_BINARY);
    for (const auto& a : args) {
        script += " " + quoted(a);
    }
    if (!redirects.empty()) {
        script += " " + redirects;
    }
    const auto run_sh = f.dir.write("on_terminal.sh", script + "\n");
    const auto input = f.dir.write("typed.txt", typed);
    const auto screen = f.dir.path() / "screen.txt";
    // -e: script's exit code is the command's; -f: flush as it comes; -q: no banner.
    const std::string command = "SHELL=/bin/sh timeout 60 script -qfec " + quoted("sh " + quoted(run_sh.string())) +
                                " /dev/null < " + quoted(input.string()) + " > " + quoted(screen.string()) + " 2>&1";
    const int status = std::system(command.c_str());
    ProcessResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read_file(screen);
    return r;
}

void wait_for_delivered(const Sandbox& sandbox, size_t count) {
    for (int i = 0; i < 500 && delivered(sandbox).size() < count; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

void edit_campaign(const CampaignFixture& fixture, const std::string& from, const std::string& to) {
    std::string yaml = read_file(fixture.campaign);
    const auto at = yaml.find(from);
    if (at == std::string::npos) {
        throw std::runtime_error("edit_campaign: \"" + from + "\" is not in the campaign file");
    }
    yaml.replace(at, from.size(), to);
    fixture.dir.write(fixture.campaign.filename().string(), yaml);
}

void add_service_line(const CampaignFixture& fixture, const std::string& line) {
    edit_campaign(fixture, "  timeout: 5s\n", "  timeout: 5s\n" + line + "\n");
}

namespace {

sockaddr_in loopback(int port) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return addr;
}

}  // namespace

bool accepts_connections(int port) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr = loopback(port);
    const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    close(fd);
    return ok;
}

int free_port() {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr = loopback(0);
    socklen_t size = sizeof addr;
    const bool ok = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
                    getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &size) == 0;
    close(fd);
    if (!ok) {
        throw std::runtime_error("free_port: no port on 127.0.0.1");
    }
    return ntohs(addr.sin_port);
}

TlsServer::TlsServer(const TempDir& dir) : m_cert(dir.path() / "cert.pem") {
    const auto key = dir.path() / "key.pem";
    const std::string make =
        "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 "
        "-addext subjectAltName=IP:127.0.0.1 -keyout '" +
        key.string() + "' -out '" + m_cert.string() + "' >/dev/null 2>&1";
    if (std::system(make.c_str()) != 0) {
        return;
    }
    const int port = free_port();
    std::vector<std::string> argv = {
        "openssl", "s_server",      "-quiet", "-www",      "-accept", "127.0.0.1:" + std::to_string(port),
        "-cert",   m_cert.string(), "-key",   key.string()};
    std::vector<char*> args;
    for (auto& a : argv) {
        args.push_back(a.data());
    }
    args.push_back(nullptr);
    if (posix_spawnp(&m_pid, "openssl", nullptr, nullptr, args.data(), environ) != 0) {
        m_pid = -1;
        return;
    }
    for (int i = 0; i < 300 && m_port == 0; ++i) {
        if (accepts_connections(port)) {
            m_port = port;
        } else {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    }
}

TlsServer::~TlsServer() {
    if (m_pid > 0) {
        kill(m_pid, SIGTERM);
        waitpid(m_pid, nullptr, 0);
    }
}

int count_events(const CampaignFixture& fixture, const std::string& event) {
    int n = 0;
    for (const auto& r : fixture.records()) {
        n += r.value("event", "") == event ? 1 : 0;
    }
    return n;
}

}  // namespace e2e
