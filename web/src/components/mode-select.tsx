// The retrieval mode, left to the server's default (hybrid) unless chosen.

import type { RetrievalMode } from "../api-types";

const modes: { value: RetrievalMode | ""; label: string }[] = [
  { value: "", label: "hybrid (default)" },
  { value: "naive", label: "naive: words" },
  { value: "graph", label: "graph: entities" },
  { value: "visual", label: "visual: pictures" },
  { value: "video", label: "video: whole videos" },
];

export function ModeSelect({ mode, onChange }: { mode: RetrievalMode | ""; onChange: (mode: RetrievalMode | "") => void }) {
  return (
    <div class="mode-select">
      <label for="mode">Retrieval</label>
      <select id="mode" value={mode} onChange={(event) => onChange(event.currentTarget.value as RetrievalMode | "")}>
        {modes.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  );
}
