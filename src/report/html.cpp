// format_html: the page's frame, its stylesheet, the heading and the figures at the top.
#include "report/html.hpp"

#include <fmt/format.h>

#include "report/html_chart.hpp"
#include "report/html_sections.hpp"
#include "report/next_steps.hpp"
#include "report/text_cells.hpp"
#include "util/text.hpp"
#include "util/time.hpp"
#include "util/utf8.hpp"

namespace report {

namespace {

using results::Status;

// No script, no fetch of any kind: even a mistake in escaping cannot run or load anything.
constexpr std::string_view k_policy = "default-src 'none'; style-src 'unsafe-inline'";

constexpr std::string_view k_style = R"(
:root{--sent:#2e7d32;--failed:#c62828;--unknown:#ef6c00;--invalid:#6a1b9a;--skipped:#78909c;
--dry:#1565c0;--p50:#1565c0;--p95:#ef6c00;--ink:#1f2328;--muted:#59636e;--line:#d1d9e0}
*{box-sizing:border-box}
body{margin:0;background:#f6f8fa;color:var(--ink);
font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:1100px;margin:0 auto;padding:24px 20px 40px}
h1{font-size:26px;margin:0 0 4px}h2{font-size:17px;margin:0 0 10px}
section,header{background:#fff;border:1px solid var(--line);border-radius:8px;padding:16px 20px;
margin:0 0 16px}
.meta,.note,footer{color:var(--muted)}.meta{margin:0}.note{margin:6px 0 0;font-size:13px}
code{font:12.5px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;overflow-wrap:anywhere}
.badge{font-size:13px;font-weight:600;color:#fff;background:var(--dry);border-radius:10px;
padding:2px 9px;vertical-align:middle}.badge.warn{background:var(--unknown)}
.tiles{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:10px;margin:0 0 14px}
.tile{border:1px solid var(--line);border-left:4px solid var(--line);border-radius:6px;padding:8px 12px}
.tile .label{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.04em}
.tile .value{font-size:22px;font-weight:600;font-variant-numeric:tabular-nums}
.tile .sub{color:var(--muted);font-size:12px}.tile.wide{grid-column:span 2}
.tile.s-sent{border-left-color:var(--sent)}.tile.s-failed{border-left-color:var(--failed)}
.tile.s-unknown{border-left-color:var(--unknown)}.tile.s-invalid{border-left-color:var(--invalid)}
.tile.s-skipped{border-left-color:var(--skipped)}.tile.s-dry_run{border-left-color:var(--dry)}
.callout{border-left:4px solid var(--unknown);background:#fff8e1;padding:8px 12px;margin:0 0 14px}
svg{display:block;width:100%;height:auto}svg.share{height:24px}
.s-sent,.c-sent{fill:var(--sent)}.s-failed,.c-failed{fill:var(--failed)}
.s-unknown{fill:var(--unknown)}.s-invalid{fill:var(--invalid)}.s-skipped{fill:var(--skipped)}
.s-dry_run{fill:var(--dry)}.share-empty{fill:#eaeef2}
.c-p50{fill:var(--p50);stroke:var(--p50)}.c-p95{fill:var(--p95);stroke:var(--p95)}
.bar{fill:var(--dry)}.line{fill:none;stroke-width:2}.grid{stroke:#eaeef2}.tick,.axis-line{stroke:#8c959f}
.axis{fill:var(--muted);font-size:12px}.legend{fill:var(--ink);font-size:13px}
.keys{display:flex;flex-wrap:wrap;gap:4px 16px;margin:8px 0 0;padding:0;list-style:none;font-size:13px}
.key{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:5px;vertical-align:-1px}
.key.s-sent{background:var(--sent)}.key.s-failed{background:var(--failed)}
.key.s-unknown{background:var(--unknown)}.key.s-invalid{background:var(--invalid)}
.key.s-skipped{background:var(--skipped)}.key.s-dry_run{background:var(--dry)}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{text-align:left;padding:5px 8px;border-bottom:1px solid #eaeef2;vertical-align:top}
th{color:var(--muted);font-weight:600}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
td.msg{overflow-wrap:anywhere;max-width:34em}td.nowrap{white-space:nowrap}.empty{color:var(--muted);margin:0}
footer{font-size:12px;text-align:center}
h3{font-size:14px;margin:14px 0 6px}td.message{overflow-wrap:anywhere;max-width:40em}
td.message .text{white-space:pre-wrap}td.message .src{color:var(--muted)}td.message .why{color:var(--failed)}
.bubble{display:inline-block;max-width:36em;background:#d9fdd3;border-radius:0 8px 8px 8px;padding:6px 10px;
box-shadow:0 1px .5px rgba(11,20,26,.13)}.bubble .head{font-weight:600}.bubble .foot{color:var(--muted);font-size:12px}
.buttons{display:flex;flex-wrap:wrap;gap:4px;max-width:36em;margin:3px 0 0}.buttons span{flex:1 1 auto;
background:#fff;border:1px solid var(--line);border-radius:8px;padding:3px 10px;text-align:center;color:#027eb5}
)";

std::string percent(std::int64_t part, std::int64_t whole) {
    return whole > 0 ? fmt::format("{:.1f}%", 100.0 * static_cast<double>(part) / static_cast<double>(whole))
                     : std::string();
}

void add_tile(std::string& out, std::string_view css, std::string_view label, std::string_view value,
              std::string_view sub = {}) {
    out += fmt::format(R"(<div class="tile {}"><div class="label">{}</div><div class="value">{}</div>)", css, label,
                       value);
    if (!sub.empty()) {
        out += fmt::format(R"(<div class="sub">{}</div>)", sub);
    }
    out += "</div>";
}

void add_heading(std::string& out, const Summary& s) {
    const bool dry = s.header.mode == results::Mode::dry_run;
    out += fmt::format(R"(<header id="campaign"><h1>{}{}</h1><p class="meta">)", html_escape(s.header.name),
                       dry ? R"( <span class="badge">dry run</span>)" : "");
    out += fmt::format("Result log <code>{}</code> · started {} by wacamp {}", html_escape(s.log_path),
                       html_time(s.header.started_at, s.zone), html_escape(s.header.version));
    if (s.runs > 1) {
        out += fmt::format(" · {} runs", s.runs);
    }
    if (s.ended && s.last_end) {
        out += fmt::format(" · last run: {} at {}", html_escape(s.last_end->reason), html_time(s.last_end->at, s.zone));
    } else {
        out += R"( · <span class="badge warn">no end record</span> the run is still going, or )"
               "stopped abruptly";
    }
    out += "</p></header>\n";
}

void add_figures(std::string& out, const Summary& s) {
    out += R"(<section id="figures"><h2>Recipients</h2><div class="tiles">)";
    switch (s.list.found) {
    case ListState::Found::same: add_tile(out, "", "List", group_digits(s.list.rows), "rows, unchanged"); break;
    case ListState::Found::changed:
        add_tile(out, "", "List", group_digits(s.list.rows), "rows, changed since the log began");
        break;
    case ListState::Found::missing: add_tile(out, "", "List", "–", "cannot be read now"); break;
    }
    add_tile(out, "", "Recipients", group_digits(s.rows), "in the log");
    if (const auto left = not_yet_attempted(s); left > 0) {
        add_tile(out, "", "Not yet attempted", group_digits(left), percent(left, s.list.rows));
    }
    std::vector<Share> shares;
    for (Status status : results::k_all_statuses) {
        const auto n = s.counts[status];
        const bool always = status == Status::sent && s.header.mode == results::Mode::send;
        if (n == 0 && !always) {
            continue;
        }
        add_tile(out, html_status_class(status), html_status_label(status), group_digits(n), percent(n, s.rows));
        shares.push_back({std::string(html_status_label(status)), html_status_class(status), n});
    }
    const auto span = std::chrono::duration_cast<util::Millis>(s.last_at - s.first_at);
    add_tile(out, "", "Duration", util::format_duration(span, util::DurationStyle::report),
             fmt::format("{} of sending", util::format_duration(s.sending_span, util::DurationStyle::report)));
    add_tile(out, "", "Send rate", s.send_rate ? fmt::format("{:.2f}/s", *s.send_rate) : "–",
             fmt::format("{} sent results", group_digits(s.sent_results)));
    add_tile(out, "", "Requests", group_digits(s.attempts),
             fmt::format("{} rate limited", group_digits(s.rate_limited)));
    if (s.retried > 0) {
        add_tile(out, "wide", "Retried", group_digits(s.retried), html_escape(retried_line(s)));
    }
    if (s.latency.count > 0) {
        add_tile(out, "wide", "Latency p50 / p95",
                 fmt::format("{} / {}", html_ms(s.latency.p50), html_ms(s.latency.p95)),
                 fmt::format("p99 {} · max {} · {} responses", html_ms(s.latency.p99), html_ms(s.latency.max),
                             group_digits(s.latency.count)));
    } else {
        add_tile(out, "", "Latency", "–", "no responses");
    }
    out += "</div>";
    if (s.in_flight > 0) {
        out += fmt::format(R"(<p class="callout">{} recipient(s) had a request in flight when a run stopped: )"
                           R"(they may have been delivered. <code>wacamp resume {} --resend-unknown</code> sends )"
                           "them again.</p>",
                           group_digits(s.in_flight), html_escape(s.log_path));
    }
    out += svg_share_bar("status-bar", shares);
    out += R"(<ul class="keys">)";
    for (const auto& share : shares) {
        out += fmt::format(R"(<li><span class="key {}"></span>{} {} ({})</li>)", share.css_class, share.label,
                           group_digits(share.count), percent(share.count, s.rows));
    }
    out += "</ul></section>\n";
}

// What stands for ASCII `c` in HTML text: a reference for a markup character, a space for a
// control character (not allowed in HTML text; tab and line breaks are), else "" (`c` itself).
constexpr std::string_view html_ascii_replacement(char c) {
    switch (c) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&quot;";
    case '\'': return "&#39;";
    case '\t':
    case '\n':
    case '\r': return {};
    default: return c < 0x20 || c == 0x7F ? " " : std::string_view();
    }
}

}  // namespace

std::string html_escape(std::string_view text) {
    // C1 controls and bidirectional overrides would reorder the page's text (a name that turns
    // the row around): shown as their escape instead.
    const auto keep = [](const util::Utf8Piece& piece) {
        const char32_t cp = piece.code_point;
        return piece.valid &&
               (cp >= 0x80 ? !util::hidden_on_terminal(cp) : html_ascii_replacement(static_cast<char>(cp)).empty());
    };
    const auto write = [](std::string& out, const util::Utf8Piece& piece) {
        const char32_t cp = piece.code_point;
        if (!piece.valid) {
            out += "\xEF\xBF\xBD";  // U+FFFD, as a browser would show it
        } else if (cp >= 0x80) {
            out += fmt::format("\\u{:04x}", static_cast<unsigned>(cp));
        } else {
            out += html_ascii_replacement(static_cast<char>(cp));
        }
    };
    return util::rewrite_utf8(text, keep, write);
}

std::string render_html(const Summary& summary, const HtmlDetails& details) {
    std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
    out += fmt::format("<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n", k_policy);
    out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
    out += fmt::format("<meta name=\"generator\" content=\"wacamp {}\">\n", WACAMP_VERSION);
    out += fmt::format("<title>{} — wacamp report</title>\n<style>{}</style></head>\n<body><main>\n",
                       html_escape(summary.header.name), k_style);
    add_heading(out, summary);
    add_figures(out, summary);
    add_html_next_steps(out, summary);
    add_html_charts(out, summary, details);
    add_html_errors(out, summary);
    add_html_templates(out, summary);
    add_html_spend(out, summary);
    add_html_review(out, summary);
    add_html_slowest(out, summary, details);
    add_html_not_sent(out, summary, details);
    add_html_invalid(out, summary, details);
    add_html_cleanup_and_warnings(out, summary);
    out += fmt::format("<footer>Made by wacamp {} from <code>{}</code>.</footer>\n", WACAMP_VERSION,
                       html_escape(summary.log_path));
    out += "</main></body></html>\n";
    return out;
}

util::Result<std::string> format_html(const Summary& summary) {
    TRY_ASSIGN(const HtmlDetails details, collect_html_details(summary));
    return render_html(summary, details);
}

}  // namespace report
