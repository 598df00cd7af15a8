// The shell completion scripts `lazy completion bash|zsh|fish` prints. Each hands the words typed so far to
// `lazy __complete` (bin/completion.ts), which answers from the command definitions; this module needs none of them.

export type Shell = 'bash' | 'zsh' | 'fish';
export const SHELLS: readonly Shell[] = ['bash', 'zsh', 'fish'];

/** The script `lazy completion <shell>` prints. */
export function completionScript(shell: Shell): string {
  return SCRIPTS[shell];
}

const BASH = `# lazy completion for bash. Load it with:  eval "$(lazy completion bash)"
# or save it as ~/.local/share/bash-completion/completions/lazy
_lazy() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" IFS=$'\\n' line
  local -a out
  out=($(command lazy __complete -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
  COMPREPLY=()
  case "\${out[0]}" in
    :dirs) COMPREPLY=($(compgen -d -- "$cur")); return 0 ;;
    :files) COMPREPLY=($(compgen -f -- "$cur")); return 0 ;;
  esac
  for line in "\${out[@]}"; do COMPREPLY+=("\${line%%$'\\t'*}"); done
}
complete -F _lazy lazy
# git lazy: git's own completion calls _git_lazy with words and cword set.
_git_lazy() {
  local IFS=$'\\n' line
  local -a out
  out=($(command lazy __complete -- "\${words[@]:2:cword-1}" 2>/dev/null))
  case "\${out[0]}" in :dirs|:files) return 0 ;; esac
  COMPREPLY=()
  for line in "\${out[@]}"; do COMPREPLY+=("\${line%%$'\\t'*} "); done
}
`;

const ZSH = `#compdef lazy git-lazy
# lazy completion for zsh. Load it with:  eval "$(lazy completion zsh)"
# or save it as _lazy in a directory on $fpath.
_lazy() {
  local -a out vals
  local line
  out=("\${(@f)$(command lazy __complete -- "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  case "$out[1]" in
    :dirs) _files -/; return ;;
    :files) _files; return ;;
  esac
  for line in $out; do
    [[ -n $line ]] && vals+=("\${line/$'\\t'/:}")
  done
  _describe -V 'lazy' vals
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then _lazy "$@"; else compdef _lazy lazy; fi
`;

const FISH = `# lazy completion for fish. Load it with:  lazy completion fish | source
# or save it as ~/.config/fish/completions/lazy.fish
function __lazy_complete
    set -l words (commandline -opc)
    set -e words[1]
    set -l cur (commandline -ct)
    set -l out (command lazy __complete -- $words "$cur" 2>/dev/null)
    switch "$out[1]"
        case :dirs
            __fish_complete_directories "$cur"
        case :files
            __fish_complete_path "$cur"
        case '*'
            printf '%s\\n' $out
    end
end
complete -c lazy -f -a '(__lazy_complete)'
`;

const SCRIPTS: Record<Shell, string> = { bash: BASH, zsh: ZSH, fish: FISH };
