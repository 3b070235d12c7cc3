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
  echo 'lint: cut keys at "/" with KeyPath (Sources/StorageCore/Model/KeySegments.swift), or work on .utf8' >&2
  status=1
fi

# 2. Property tests draw from fixed seeds (Tests/KodoTestSupport/SeededCheck.swift), so that every
#    run of `make test` checks the same inputs: PropertyBased's propertyCheck draws fresh ones.
found=$(grep -rn 'propertyCheck(' Tests --include='*.swift' | grep -v '^Tests/KodoTestSupport/SeededCheck.swift:')
if [ -n "$found" ]; then
  echo "$found"
  echo 'lint: write property tests with seededCheck (Tests/KodoTestSupport/SeededCheck.swift)' >&2
  status=1
fi
exit $status
