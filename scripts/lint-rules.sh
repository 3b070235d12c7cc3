#!/bin/sh
# House rules that swift-format cannot see; `make lint` runs this after it.
status=0

# 1. No grapheme-level cut at "/" in Sources (see Sources/StorageCore/Model/KeySegments.swift): a "/"
#    followed by a combining mark is one Character that is not "/", so split(separator: "/"),
#    firstIndex(of: "/"), hasSuffix("/") and the like miss a separator that the file system and
#    the services see. Cut keys with KeySegments, and other text on its utf8 view.
pattern='split\(separator: "/"|separatedBy: "/"|(of|where): "/"\)|(Suffix|Prefix|contains)\("/"\)|\$0 [!=]= "/"|(first|last) [!=]= "/"'
found=$(grep -rnE "$pattern" Sources --include='*.swift' | grep -v '^Sources/StorageCore/Model/KeySegments.swift:')
if [ -n "$found" ]; then
  echo "$found"
  echo 'lint: cut keys at "/" with KeySegments (Sources/StorageCore/Model/KeySegments.swift), or work on .utf8' >&2
  status=1
fi

# 2. Protocol text (queries, header lines and values, signatures, authorities, policies) is cut,
#    searched and compared at bytes in the protocol targets: a delimiter followed by a combining
#    mark is one Character that is not the delimiter, and U+037E is a Character equal to ";", so
#    the grapheme-level forms miss delimiters the services see and find ones they do not. Use
#    WireText (Sources/StorageCore/Text/WireText.swift), or work on .utf8. A reviewed exception
#    carries the comment `// lint: characters` on its line.
protocol_dirs='Sources/StorageCore Sources/KodoCore Sources/OSSCore Sources/KodoEmulator'
pattern='split\(separator: "|separatedBy:|(?<!WireText\.)(first|last)Index\(of: "|(?<!WireText)(?<!ByteOrder)\.has(Pre|Suf)fix\(|(?<!WireText)\.contains\("|(?<!WireText\.)range\(of: "|trimmingCharacters\(|caseInsensitiveCompare\('
# shellcheck disable=SC2086
found=$(grep -rnP "$pattern" $protocol_dirs --include='*.swift' \
  | grep -v '^Sources/StorageCore/Text/WireText.swift:' | grep -v '^Sources/StorageCore/Model/KeySegments.swift:' \
  | grep -v '// lint: characters')
if [ -n "$found" ]; then
  echo "$found"
  echo 'lint: cut, search and compare protocol text at bytes with WireText (Sources/StorageCore/Text/WireText.swift: split, cut, range, hasPrefix, dropping, same, trimmingSpaces), or on .utf8' >&2
  status=1
fi

# 3. Property tests draw from fixed seeds (Tests/KodoTestSupport/SeededCheck.swift), so that every
#    run of `make test` checks the same inputs: PropertyBased's propertyCheck draws fresh ones.
found=$(grep -rn 'propertyCheck(' Tests --include='*.swift' | grep -v '^Tests/KodoTestSupport/SeededCheck.swift:')
if [ -n "$found" ]; then
  echo "$found"
  echo 'lint: write property tests with seededCheck (Tests/KodoTestSupport/SeededCheck.swift)' >&2
  status=1
fi
# 4. Descriptors are closed on exec: `open`/`openat` pass O_CLOEXEC, and the calls that cannot
#    (`dup`, `mkstemp`) go through Descriptors (Sources/StorageCore/Support/Descriptors.swift).
#    A descriptor without the flag stays open in every process started meanwhile, with any
#    `flock` taken through it.
found=$(grep -rnE '(^|[^a-zA-Z_.])(dup|dup2|mkstemp|pipe)\(' Sources --include='*.swift' \
  | grep -v '^Sources/StorageCore/Support/Descriptors.swift:' | grep -vE '^[^:]+:[0-9]+:\s*///')
if [ -n "$found" ]; then
  echo "$found"
  echo 'lint: duplicate descriptors and make temporary files through Descriptors (Sources/StorageCore/Support/Descriptors.swift), closed on exec' >&2
  status=1
fi
exit $status
