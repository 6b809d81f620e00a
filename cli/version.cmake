# Writes the version header at build time (not only at configure time), so the git revision in
# `uringload --version` and in the JSON result is the one that was built. configure_file only
# rewrites the header when its text changes, so an unchanged revision rebuilds nothing.
# Inputs (-D): SOURCE_DIR, OUTPUT, TEMPLATE, PROJECT_VERSION, LIBURING_VERSION. Included
# without OUTPUT (deploy/CMakeLists.txt), it only sets GIT_REVISION and GIT_COMMITS.
set(GIT_REVISION "unknown")
set(GIT_COMMITS "0")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" describe --always --dirty
                          --abbrev=12
                  OUTPUT_VARIABLE GIT_REVISION OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE describe_failed ERROR_QUIET)
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" rev-list --count HEAD
                  OUTPUT_VARIABLE GIT_COMMITS OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE count_failed ERROR_QUIET)
  if(describe_failed OR count_failed)
    set(GIT_REVISION "unknown")
    set(GIT_COMMITS "0")
  endif()
endif()
if(DEFINED OUTPUT)
  configure_file("${TEMPLATE}" "${OUTPUT}" @ONLY)
endif()
