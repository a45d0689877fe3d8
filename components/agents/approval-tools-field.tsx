'use client';

import { useState } from 'react';
import { useController, type Control } from 'react-hook-form';
import type { AgentCreate, AgentCreateInput } from '@/lib/schemas/agent';
import { TOOL_GROUPS } from '@/lib/tool-groups';
import { CheckboxFieldset, CheckboxOption } from './form-options';
import { approvalGroups, toggledApprovals, type ToolAvailability } from './tool-availability';

/**
 * The agent form's built-in approval rules, one checkbox per tool a run can get (tool-availability.ts). A tool this
 * server never offers is left out, or, when the agent already has its rule, shown checked with why it is inactive.
 */
export function ApprovalToolsField({ control, availability }: { control: Control<AgentCreateInput, unknown, AgentCreate>; availability: ToolAvailability }) {
  const { field, fieldState } = useController({ control, name: 'approvalTools' });
  const value = field.value ?? [];
  // Decided once from the saved rules: a checkbox must not vanish under the pointer when it is unchecked.
  const [groups] = useState(() => approvalGroups(availability, value));
  const firstTool = groups.flatMap((g) => g.choices)[0]?.tool;
  return (
    <CheckboxFieldset
      legend="Tools that need approval"
      hint="A call to a checked tool pauses the run until you approve or reject it."
      error={fieldState.error?.message}
    >
      <div className="grid gap-4 sm:grid-cols-3">
        {groups.map(({ group, choices, omitted }) => (
          <div key={group} className="min-w-0 space-y-1.5">
            <p className="text-xs font-semibold tracking-wide text-zinc-500 uppercase dark:text-zinc-400">{TOOL_GROUPS[group].label}</p>
            {choices.map(({ tool, inactive }) => (
              <CheckboxOption
                key={tool}
                ref={tool === firstTool ? field.ref : undefined}
                label={<span className="font-mono text-[13px] break-all">{tool}</span>}
                description={inactive ? `Inactive: ${inactive}. The rule is kept until you uncheck it.` : undefined}
                checked={value.includes(tool)}
                onBlur={field.onBlur}
                onChange={(on) => field.onChange(toggledApprovals(value, tool, on))}
              />
            ))}
            {omitted.map(({ tool, reason }) => (
              <p key={tool} className="text-xs break-words text-zinc-500 dark:text-zinc-400">
                <span className="font-mono">{tool}</span> is not offered: {reason}.
              </p>
            ))}
          </div>
        ))}
      </div>
    </CheckboxFieldset>
  );
}
