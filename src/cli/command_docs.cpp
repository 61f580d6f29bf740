#include "cli/command_docs.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <algorithm>

namespace cli {

namespace {

// The first line of `text`, cut to `max` characters at a space: a one-line description.
std::string one_line(const std::string& text, std::size_t max = 100) {
    std::string line = text.substr(0, text.find('\n'));
    if (line.size() > max) {
        const auto space = line.rfind(' ', max);
        line = line.substr(0, space == std::string::npos ? max : space) + "…";
    }
    return line;
}

OptionDoc describe_option(const CLI::Option& option) {
    OptionDoc doc;
    doc.long_names = option.get_lnames();
    doc.short_names = option.get_snames();
    if (option.get_positional() && doc.long_names.empty() && doc.short_names.empty()) {
        doc.positional = option.get_name();
    }
    doc.description = option.get_description();
    doc.takes_value = option.get_expected_max() > 0;  // a flag expects none
    return doc;
}

// Calls `each(path, command)` for `command` and every subcommand below it, depth first;
// `path` joins the names from the program down with "/" ("" for the program, "suppress/add").
template <typename F>
void walk(const CommandDoc& command, const std::string& path, F&& each) {
    each(path, command);
    for (const auto& sub : command.subcommands) {
        walk(sub, path.empty() ? sub.name : path + "/" + sub.name, each);
    }
}

bool takes_files(const CommandDoc& command) {
    return std::any_of(command.options.begin(), command.options.end(),
                       [](const OptionDoc& option) { return !option.positional.empty() || option.takes_value; });
}

// `case` patterns matching "PARENT/NAME" for every subcommand: the words that extend the path.
std::string path_patterns(const CommandDoc& program) {
    std::string out;
    walk(program, "", [&](const std::string& path, const CommandDoc& command) {
        for (const auto& sub : command.subcommands) {
            out += fmt::format("{}\"{}/{}\"", out.empty() ? "" : "|", path, sub.name);
        }
    });
    return out;
}

std::string space_joined_flags(const CommandDoc& command) {
    std::string out;
    for (const auto& option : command.options) {
        for (const auto& name : option.long_names) {
            out += (out.empty() ? "--" : " --") + name;
        }
        for (const auto& name : option.short_names) {
            out += (out.empty() ? "-" : " -") + name;
        }
    }
    return out;
}

// Inside single quotes, for sh and zsh.
std::string single_quoted(const std::string& text) {
    std::string out;
    for (char c : text) {
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return out;
}

// A description inside a zsh _arguments spec's brackets or a _describe entry.
std::string zsh_text(const std::string& text) {
    std::string out;
    for (char c : one_line(text)) {
        if (c == '[' || c == ']' || c == ':' || c == '\\') {
            out += '\\';
        }
        out += c;
    }
    return single_quoted(out);
}

// Inside single quotes, for fish.
std::string fish_quoted(const std::string& text) {
    std::string out;
    for (char c : one_line(text)) {
        if (c == '\'' || c == '\\') {
            out += '\\';
        }
        out += c;
    }
    return out;
}

// Text for roff: backslashes and hyphens escaped, no line that starts as a request.
std::string roff(const std::string& text) {
    std::string out;
    for (char c : text) {
        switch (c) {
        case '\\': out += "\\e"; break;
        case '-': out += "\\-"; break;
        case '\n': out += ' '; break;
        default: out += c;
        }
    }
    if (!out.empty() && (out.front() == '.' || out.front() == '\'')) {
        out.insert(0, "\\&");
    }
    return out;
}

std::string man_option_line(const OptionDoc& option) {
    std::string names;
    for (const auto& name : option.short_names) {
        names += (names.empty() ? "" : ", ") + std::string("\\fB\\-") + roff(name) + "\\fR";
    }
    for (const auto& name : option.long_names) {
        names += (names.empty() ? "" : ", ") + std::string("\\fB\\-\\-") + roff(name) + "\\fR";
    }
    if (names.empty()) {
        names = "\\fI" + roff(option.positional) + "\\fR";
    } else if (option.takes_value) {
        names += " \\fIVALUE\\fR";
    }
    return fmt::format(".TP\n{}\n{}\n", names, roff(option.description));
}

// What tells bash's completion function from zsh's.
struct Shell {
    std::string_view indent;
    std::string_view locals;   // after `local`
    std::string_view words;    // the array of the command line's words
    int first;                 // the index of the first word after the program's name
    std::string_view current;  // the index of the word at the cursor
};

constexpr Shell k_bash{"    ", "cur=${COMP_WORDS[COMP_CWORD]} cmdpath=\"\" i word subs opts files", "COMP_WORDS", 1,
                       "COMP_CWORD"};
constexpr Shell k_zsh{"  ", "cmdpath=\"\" i word", "words", 2, "CURRENT"};

// The function `_wacamp` in `shell`: it walks the words before the cursor, keeping in $cmdpath
// the subcommands among them ("run", "suppress/add"), then runs the `case` of $cmdpath among
// `cases`, then `after`.
std::string completion_function(const Shell& shell, const CommandDoc& program, const std::string& cases,
                                std::string_view after) {
    return fmt::format(
        "_wacamp() {{\n"
        "{0}local {1}\n"
        "{0}for ((i = {3}; i < {4}; i++)); do\n"
        "{0}{0}word=${{{2}[i]}}\n"
        "{0}{0}case \"$cmdpath/$word\" in\n"
        "{0}{0}{0}{5}) cmdpath=${{cmdpath:+$cmdpath/}}$word ;;\n"
        "{0}{0}esac\n"
        "{0}done\n"
        "{0}case $cmdpath in\n"
        "{6}"
        "{0}esac\n"
        "{7}"
        "}}\n",
        shell.indent, shell.locals, shell.words, shell.first, shell.current, path_patterns(program), cases, after);
}

}  // namespace

CommandDoc describe(const CLI::App& app) {
    CommandDoc doc;
    doc.name = app.get_name();
    doc.description = app.get_description();
    for (const CLI::Option* option : app.get_options()) {
        doc.options.push_back(describe_option(*option));
    }
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
        if (sub->get_name().empty()) {
            // An option group (CLI11 makes it a nameless subcommand): its options are the parent's.
            CommandDoc group = describe(*sub);
            doc.options.insert(doc.options.end(), group.options.begin(), group.options.end());
        } else if (!sub->get_group().empty()) {  // hidden subcommands have no group
            doc.subcommands.push_back(describe(*sub));
        }
    }
    return doc;
}

std::string bash_completion(const CommandDoc& program) {
    std::string cases;
    walk(program, "", [&](const std::string& path, const CommandDoc& command) {
        std::string subs;
        for (const auto& sub : command.subcommands) {
            subs += (subs.empty() ? "" : " ") + sub.name;
        }
        cases += fmt::format("        \"{}\") subs=\"{}\"; opts=\"{}\"; files={} ;;\n", path, subs,
                             space_joined_flags(command), takes_files(command) ? 1 : 0);
    });
    cases += "        *) return 0 ;;\n";
    return "# bash completion for wacamp (generated by `wacamp completion bash`)\n" +
           completion_function(k_bash, program, cases,
                               "    if [[ $cur == -* ]]; then\n"
                               "        mapfile -t COMPREPLY < <(compgen -W \"$opts\" -- \"$cur\")\n"
                               "    else\n"
                               "        mapfile -t COMPREPLY < <(compgen -W \"$subs\" -- \"$cur\")\n"
                               "        if ((files)); then\n"
                               "            mapfile -t -O \"${#COMPREPLY[@]}\" COMPREPLY < <(compgen -f -- \"$cur\")\n"
                               "        fi\n"
                               "    fi\n") +
           "complete -o filenames -F _wacamp wacamp\n";
}

std::string zsh_completion(const CommandDoc& program) {
    std::string cases;
    walk(program, "", [&](const std::string& path, const CommandDoc& command) {
        std::string specs;
        for (const auto& option : command.options) {
            for (const auto& name : option.long_names) {
                specs += fmt::format(" '--{}{}[{}]{}'", name, option.takes_value ? "=" : "",
                                     zsh_text(option.description), option.takes_value ? ":value:_files" : "");
            }
            for (const auto& name : option.short_names) {
                specs += fmt::format(" '-{}[{}]{}'", name, zsh_text(option.description),
                                     option.takes_value ? ":value:_files" : "");
            }
        }
        std::string subs;
        for (const auto& sub : command.subcommands) {
            subs += fmt::format(" '{}:{}'", sub.name, zsh_text(sub.description));
        }
        std::string body;
        if (!subs.empty()) {
            body = fmt::format(
                "if [[ $PREFIX == -* ]]; then _arguments{}; else local -a subs; subs=({}); _describe -t commands "
                "command subs; fi",
                specs, subs);
        } else {
            body = fmt::format("_arguments{}{}", specs, takes_files(command) ? " '*:file:_files'" : "");
        }
        cases += fmt::format("    \"{}\") {} ;;\n", path, body);
    });
    return "#compdef wacamp\n"
           "# zsh completion for wacamp (generated by `wacamp completion zsh`)\n" +
           completion_function(k_zsh, program, cases, "") + "_wacamp \"$@\"\n";
}

std::string fish_completion(const CommandDoc& program) {
    std::string out =
        "# fish completion for wacamp (generated by `wacamp completion fish`)\n"
        "complete -c wacamp -f\n";
    walk(program, "", [&](const std::string& path, const CommandDoc& command) {
        // The condition: every name of the path seen, and (for the names it offers) none of
        // the subcommands below it yet.
        std::string seen = path.empty() ? "true" : "";
        std::string rest = path;
        while (!rest.empty()) {
            const auto slash = rest.find('/');
            seen +=
                fmt::format("{}__fish_seen_subcommand_from {}", seen.empty() ? "" : "; and ", rest.substr(0, slash));
            rest = slash == std::string::npos ? "" : rest.substr(slash + 1);
        }
        std::string below;
        for (const auto& sub : command.subcommands) {
            below += " " + sub.name;
        }
        const std::string here = below.empty() ? seen : seen + "; and not __fish_seen_subcommand_from" + below;
        for (const auto& sub : command.subcommands) {
            out +=
                fmt::format("complete -c wacamp -n '{}' -a {} -d '{}'\n", here, sub.name, fish_quoted(sub.description));
        }
        for (const auto& option : command.options) {
            std::string names;
            for (const auto& name : option.long_names) {
                names += " -l " + name;
            }
            for (const auto& name : option.short_names) {
                names += " -s " + name;
            }
            if (!names.empty()) {
                out += fmt::format("complete -c wacamp -n '{}'{}{} -d '{}'\n", here, names,
                                   option.takes_value ? " -r -F" : "", fish_quoted(option.description));
            }
        }
        if (!path.empty() && command.subcommands.empty() && takes_files(command)) {
            out += fmt::format("complete -c wacamp -n '{}' -F\n", here);
        }
    });
    return out;
}

std::string man_page(const CommandDoc& program, const std::string& version) {
    std::string out = fmt::format(
        ".TH WACAMP 1 \"\" \"wacamp {}\" \"User Commands\"\n"
        ".SH NAME\n"
        "wacamp \\- batch campaigns for the WhatsApp messaging automation service\n"
        ".SH SYNOPSIS\n"
        ".B wacamp\n"
        ".I COMMAND\n"
        "[\\fIOPTIONS\\fR] [\\fIARGUMENTS\\fR]\n"
        ".SH DESCRIPTION\n"
        "A YAML campaign file and a CSV recipient list feed a rate\\-aware queue that sends text or image "
        "messages through the service's HTTP API, writes a result log per recipient, and can delete the "
        "contacts afterwards. The account's ledger remembers opt\\-outs, undeliverable numbers and sends "
        "across campaigns. Every command is described below; the README and docs/ in "
        "/usr/share/doc/wacamp say more.\n"
        ".SH COMMANDS\n",
        roff(version));
    walk(program, "", [&](const std::string& path, const CommandDoc& command) {
        if (path.empty()) {
            return;
        }
        std::string title = "wacamp " + path;
        std::replace(title.begin(), title.end(), '/', ' ');
        for (const auto& option : command.options) {
            if (!option.positional.empty()) {
                title += " " + option.positional;
            }
        }
        out += fmt::format(".SS \"{}\"\n{}\n", roff(title), roff(command.description));
        for (const auto& option : command.options) {
            out += man_option_line(option);
        }
    });
    out +=
        ".SH EXIT STATUS\n"
        ".TP\n.B 0\ndone: every recipient ended sent, invalid or skipped (dry run, validate: the campaign is usable)\n"
        ".TP\n.B 1\nran to the end, but some recipients failed or are unknown; \\fBwacamp resume\\fR can retry "
        "them\n"
        ".TP\n.B 2\nbad invocation or unusable input (campaign file, CSV, missing secret); nothing was sent\n"
        ".TP\n.B 3\nstopped early: credentials refused, failure threshold reached, a wrong service URL, or "
        "interrupted; resumable\n"
        ".SH FILES\n"
        ".TP\n.I $XDG_STATE_HOME/wacamp/ledger.sqlite\n"
        "the account's ledger (else \\fI~/.local/state/wacamp/ledger.sqlite\\fR); \\fBaccount.ledger\\fR "
        "names another (a path, or a \\fBpostgresql://\\fR URL that runners on several machines share), "
        "\\fBoff\\fR none\n"
        ".SH ENVIRONMENT\n"
        ".TP\n.B XDG_STATE_HOME\nwhere the ledger lives by default\n"
        ".TP\n.B WACAMP_*\nsecrets named in a campaign file as ${NAME} (any variable name works)\n"
        ".TP\n.B PGPASSWORD, PGPASSFILE, PG*\nlibpq's own, for a PostgreSQL ledger whose URL gives no password\n";
    return out;
}

}  // namespace cli
