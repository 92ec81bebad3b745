/**
 * The shell scripts `akm completions bash|zsh|fish` prints. Each one only
 * hands the words typed so far to `akm __complete` (completeRun.ts) and
 * offers what it prints, so the three shells complete exactly the same
 * things and a new command or option needs no script change
 * (docs/decisions/0015-completions.md). Where akm offers nothing (a path
 * argument such as `bundle add <source>`), the shell completes file names.
 * They call `akm`, not `command akm`: an alias or function named akm (as
 * docs/getting-started.md suggests for a clone) is what the user runs.
 */

export const SHELLS = ["bash", "zsh", "fish"] as const
export type Shell = (typeof SHELLS)[number]

// Bash splits a word at the characters of COMP_WORDBREAKS (= and : by default), so `--format=j` reaches
// the function as `--format`, `=`, `j`: the words are read again from COMP_LINE, and the part of a
// candidate before the last break character is dropped, since bash replaces only what follows it.
const bash = `# akm completion for bash. Install:
#   akm completions bash > ~/.local/share/bash-completion/completions/akm
# or add to ~/.bashrc:  eval "$(akm completions bash)"
_akm_complete() {
  local line="\${COMP_LINE:0:COMP_POINT}"
  local -a words=()
  read -r -a words <<< "$line"
  if [[ -z "$line" || "$line" == *[[:space:]] ]]; then words+=(""); fi
  local cur="\${words[\${#words[@]}-1]}"
  local -a candidates=()
  local candidate
  while IFS= read -r candidate; do
    [[ -n "$candidate" ]] && candidates+=("$candidate")
  done < <(akm __complete "\${words[@]:1}" 2>/dev/null)
  local tail="\${cur##*[=:]}"
  local head="\${cur:0:\${#cur}-\${#tail}}"
  if [[ -n "$head" && "$COMP_WORDBREAKS" == *"\${head: -1}"* ]]; then
    candidates=("\${candidates[@]#"$head"}")
  fi
  COMPREPLY=("\${candidates[@]}")
  # A bundle (notes//) or an option waiting for its value (--bundle=) goes on without a space.
  if [[ \${#COMPREPLY[@]} -eq 1 && ( "\${COMPREPLY[0]}" == */ || "\${COMPREPLY[0]}" == *= ) ]]; then
    compopt -o nospace 2>/dev/null
  fi
  return 0
}
complete -o default -F _akm_complete akm
`

const zsh = `#compdef akm
# akm completion for zsh. Install (a folder on $fpath, then start a new shell):
#   akm completions zsh > "\${fpath[1]}/_akm"
# or add to ~/.zshrc after compinit:  source <(akm completions zsh)
_akm() {
  local -a candidates spaced unspaced
  candidates=("\${(@f)$(akm __complete "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  candidates=("\${(@)candidates:#}")
  if (( \${#candidates} == 0 )); then
    _files
    return
  fi
  local cur="\${words[CURRENT]}"
  if [[ "$cur" == -*=* ]]; then
    # --format=j: the part up to = stays as typed, the values complete after it.
    local head="\${cur%%=*}="
    compset -P '*='
    candidates=("\${(@)candidates#$head}")
  fi
  local candidate
  for candidate in "\${candidates[@]}"; do
    if [[ "$candidate" == */ || "$candidate" == *= ]]; then unspaced+=("$candidate"); else spaced+=("$candidate"); fi
  done
  (( \${#spaced} )) && compadd -Q -- "\${spaced[@]}"
  (( \${#unspaced} )) && compadd -Q -S '' -- "\${unspaced[@]}"
  return 0
}
if [[ "\${funcstack[1]}" == "_akm" ]]; then
  _akm "$@"
else
  compdef _akm akm
fi
`

const fish = `# akm completion for fish. Install:
#   akm completions fish > ~/.config/fish/completions/akm.fish
function __akm_complete
    set -l words (commandline -opc)
    set -l current (commandline -ct)
    set -l candidates (akm __complete $words[2..-1] "$current" 2>/dev/null)
    if test (count $candidates) -eq 0
        __fish_complete_path "$current"
        return
    end
    printf '%s\\n' $candidates
end
complete -c akm -f -a '(__akm_complete)'
`

/** The completion script for `shell`. */
export const completionScript = (shell: Shell): string => ({ bash, zsh, fish })[shell]
